import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The module-boundary rules of the monorepo (what Nx's enforce-module-boundaries
 * lint would check) and its layout rules, as pure functions over source files so
 * they are testable.
 */
export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

const IMPORT_PATTERN = /(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) found.push(match[1] ?? match[2] ?? match[3]);
  return found;
}

function areaOf(path: string): { kind: 'app' | 'lib' | 'other'; name: string } {
  const [top, name] = path.split('/');
  if (top === 'apps') return { kind: 'app', name };
  if (top === 'libs') return { kind: 'lib', name };
  return { kind: 'other', name: top };
}

const APP_PACKAGES = /^@voice\/(api-gateway|agents-service|conversations-service)(\/|$)/;
const CONTRACTS_ALLOWED = /^(class-validator|class-transformer)$/;
/** Pure files, by name: deciders, evolve functions and rules know no framework, database or bus. */
const PURE_FILE = /\.(decider|evolve|rules)\.ts$/;
/** typeorm and pg with their subpaths, every @nestjs and @nats-io package. */
const INFRASTRUCTURE = /^(typeorm|pg)(\/|$)|^@nestjs\/|^@nats-io\//;

export function findBoundaryViolations(files: SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const from = areaOf(file.path);
    for (const specifier of importSpecifiers(file.text)) {
      const add = (rule: string) => violations.push({ file: file.path, specifier, rule });
      let target: { kind: string; name: string } | undefined;
      if (specifier.startsWith('.')) {
        const dir = file.path.split('/').slice(0, -1).join('/');
        const joined = join(dir, specifier).split(sep).join('/');
        target = areaOf(joined);
        if (joined.startsWith('..')) add('imports from outside the repository');
      } else if (APP_PACKAGES.test(specifier)) {
        target = { kind: 'app', name: specifier.replace(/^@voice\//, '').split('/')[0] };
      } else if (specifier.startsWith('@voice/')) {
        target = { kind: 'lib', name: specifier.replace(/^@voice\//, '').split('/')[0] };
      }
      if (from.kind === 'app' && target?.kind === 'app' && target.name !== from.name) add('an app imports another app');
      if (from.kind === 'lib' && target?.kind === 'app') add('a library imports an app');
      if (from.kind === 'app' && target?.kind === 'other') add('an app imports code outside apps/ and libs/');
      if (from.kind === 'lib' && from.name === 'contracts') {
        const external = !specifier.startsWith('.') && !specifier.startsWith('node:');
        if (external && !CONTRACTS_ALLOWED.test(specifier)) add('contracts depends only on class-validator/class-transformer');
        if (target?.kind === 'lib' && target.name !== 'contracts') add('contracts imports another library');
      }
      if (PURE_FILE.test(file.path) && INFRASTRUCTURE.test(specifier)) add('pure domain code imports infrastructure');
    }
  }
  return violations;
}

export interface LayoutViolation {
  file: string;
  rule: string;
  detail?: string;
}

export const MAX_SOURCE_LINES = 400;
const MIGRATION_FILE = /^\d{13}-.*\.ts$/;
const TEST_FILE = /\.(spec|int-spec|e2e-spec)\.ts$/;
/** Written by a build step from another source (the console's API types from the OpenAPI document), never by hand. */
const GENERATED_FILE = /\.generated\.ts$/;

/** Lines as an editor numbers them: a final newline does not start another line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/**
 * Where files live and how large they grow: every app keeps its migrations in
 * src/database/migrations/ (where its data source loads them from), and no source
 * file other than a test passes MAX_SOURCE_LINES.
 */
export function findLayoutViolations(files: SourceFile[]): LayoutViolation[] {
  const violations: LayoutViolation[] = [];
  for (const file of files) {
    const [top, app, src] = file.path.split('/');
    const name = file.path.split('/').pop() ?? '';
    const home = `apps/${app}/src/database/migrations/`;
    if (top === 'apps' && src === 'src' && MIGRATION_FILE.test(name) && !file.path.startsWith(home)) {
      violations.push({ file: file.path, rule: 'a migration outside src/database/migrations/', detail: `move it to ${home}` });
    }
    const lines = lineCount(file.text);
    if ((top === 'apps' || top === 'libs') && !TEST_FILE.test(name) && !GENERATED_FILE.test(name) && lines > MAX_SOURCE_LINES) {
      violations.push({ file: file.path, rule: `a non-test source file over ${MAX_SOURCE_LINES} lines`, detail: `${lines} lines` });
    }
  }
  return violations;
}

const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Every TypeScript and JavaScript source file under apps/ and libs/ (tests included, build output excluded). */
export function readSourceTree(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry)) files.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  for (const top of ['apps', 'libs']) walk(resolve(root, top));
  return files;
}
