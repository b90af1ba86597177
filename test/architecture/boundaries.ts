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
const CONTRACTS_ALLOWED = /^(class-validator|class-transformer|ajv\/dist\/2020\.js|ajv-formats|@sinclair\/typebox)$/;
/**
 * The voice platforms' library sits above contracts and service-kit and below the apps: it uses only those two
 * of our packages (its tests may also start the simulators), and no other library uses it.
 */
const VOICE_PLATFORMS_LIB = 'voice-platforms';
const VOICE_PLATFORMS_USES = new Set(['contracts', 'service-kit']);
const TEST_SOURCE = /\.(spec|int-spec|e2e-spec)\.ts$|\/testing\//;
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
        if (external && !CONTRACTS_ALLOWED.test(specifier)) add('contracts depends only on its validation libraries (class-validator, class-transformer, ajv, TypeBox)');
        if (target?.kind === 'lib' && target.name !== 'contracts') add('contracts imports another library');
      }
      if (from.kind === 'lib' && target?.kind === 'lib' && target.name !== from.name) {
        if (target.name === VOICE_PLATFORMS_LIB) add('a library imports voice-platforms');
        if (from.name === VOICE_PLATFORMS_LIB && !VOICE_PLATFORMS_USES.has(target.name) && !TEST_SOURCE.test(file.path)) add('voice-platforms imports a library other than contracts and service-kit');
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

/** The one home of the sentiment rank (negative < neutral < positive). */
export const SENTIMENT_RANK_HOME = 'libs/contracts/src/conversation-filters.ts';
/** The one home of the check that a parsed JSON value is an object with keys (`isPlainObject`). */
export const PLAIN_OBJECT_CHECK_HOME = 'libs/contracts/src/plain-object.ts';
/** The one home of the list filters' SQL predicates. */
export const FILTER_SQL_HOME = 'apps/conversations-service/src/conversation-filters/';
const READ_MODEL_SERVICE = 'apps/conversations-service/src/';

/** A sentiment written with a small number (`negative: 0`, `'negative' ? 0`, `['negative', 0]`, `WHEN 'negative' THEN 0`, `case 'negative': return 0`). */
const SENTIMENT_NUMBER = /\b(negative|neutral|positive)\b['"`]?\s*(?::|\?|=>|,|\bTHEN\b)\s*(?:return\s+)?(-?\d+)\b/gi;
/** The sentiments listed in rank order, so that their positions are the rank. */
const SENTIMENTS_IN_RANK_ORDER = /negative['"`]\s*,\s*['"`]neutral['"`]\s*,\s*['"`]positive/i;
/** `typeof v === 'object' && v !== null && !Array.isArray(v)`, in either order of the first two tests. */
const PLAIN_OBJECT_CHECK = new RegExp([
  String.raw`typeof\s+([\w.$]+)\s*===?\s*['"]object['"]\s*&&\s*\1\s*!==?\s*null\s*&&\s*!\s*Array\.isArray\(\s*\1\s*\)`,
  String.raw`([\w.$]+)\s*!==?\s*null\s*&&\s*typeof\s+\2\s*===?\s*['"]object['"]\s*&&\s*!\s*Array\.isArray\(\s*\2\s*\)`,
].join('|'));
/** A string or template literal (the SQL a store writes). */
const STRING_LITERAL = /`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g;
const READ_MODEL_TABLE = /\bconversations\.(conversations|conversation_topics|conversation_search)\b/i;
const COMPARISON = '(?:=|<>|!=|>=|<=|<|>|LIKE|ILIKE)';
/** A comparison template of any column with any value: `${column} >= ${param}`. */
const COMPARISON_BUILDER = new RegExp(`\\$\\{[^}]+\\}\\s*${COMPARISON}\\s*\\$+\\{`, 'i');

/**
 * Whether a text defines a sentiment rank: the three sentiments mapped to single-digit numbers in order, either
 * way (counts of them are rarely single digits, and ordered only by chance), or listed in rank order.
 */
export function definesSentimentRank(text: string): boolean {
  if (SENTIMENTS_IN_RANK_ORDER.test(text)) return true;
  const numbers = new Map<string, number[]>();
  for (const [, name, value] of text.matchAll(SENTIMENT_NUMBER)) {
    if (!/^-?\d$/.test(value)) continue;
    const key = name.toLowerCase();
    numbers.set(key, [...(numbers.get(key) ?? []), Number(value)]);
  }
  const [negative, neutral, positive] = ['negative', 'neutral', 'positive'].map((name) => numbers.get(name) ?? []);
  return negative.some((n) => neutral.some((m) => positive.some((p) => (n < m && m < p) || (n > m && m > p))));
}

/**
 * Things defined once: no source file but SENTIMENT_RANK_HOME defines a sentiment rank, none but
 * PLAIN_OBJECT_CHECK_HOME writes the plain-object check (under whatever name), and no file of
 * conversations-service but FILTER_SQL_HOME writes a filter predicate: a comparison template (`${c} = ${p}`),
 * or a comparison of a filter column with an interpolated value, or, in SQL over the list's read model, with a
 * numbered parameter.
 * Tests are exempt (an independent expectation may restate what it checks).
 */
export function findRedefinitions(files: SourceFile[], filterColumns: readonly string[]): LayoutViolation[] {
  const violations: LayoutViolation[] = [];
  const compared = (value: string) => new RegExp(`\\b(${filterColumns.join('|')})\\s*${COMPARISON}\\s*${value}`, 'i');
  /** With an interpolated value: anywhere in the service; with a numbered parameter: in SQL over the read model. */
  const [withInterpolated, withParameter] = [compared('\\$+\\{'), compared('\\$\\d')];
  for (const file of files) {
    const name = file.path.split('/').pop() ?? '';
    if (TEST_FILE.test(name) || GENERATED_FILE.test(name)) continue;
    if (file.path !== SENTIMENT_RANK_HOME && definesSentimentRank(file.text)) {
      violations.push({ file: file.path, rule: 'a sentiment rank outside its home', detail: `use sentimentRank from ${SENTIMENT_RANK_HOME}` });
    }
    if (file.path !== PLAIN_OBJECT_CHECK_HOME && PLAIN_OBJECT_CHECK.test(file.text)) {
      violations.push({ file: file.path, rule: 'a plain-object check outside its home', detail: `use isPlainObject from ${PLAIN_OBJECT_CHECK_HOME}` });
    }
    if (!file.path.startsWith(READ_MODEL_SERVICE) || file.path.startsWith(FILTER_SQL_HOME) || file.path.includes('/database/migrations/')) continue;
    for (const [literal] of file.text.matchAll(STRING_LITERAL)) {
      if (COMPARISON_BUILDER.test(literal) || withInterpolated.test(literal) || (READ_MODEL_TABLE.test(literal) && withParameter.test(literal))) {
        violations.push({ file: file.path, rule: 'a filter predicate outside the filters\' module', detail: `${literal.slice(0, 80)}: compile it with ${FILTER_SQL_HOME}` });
      }
    }
  }
  return violations;
}

/** Where each voice platform's dialect lives: its own folder of the voice-platforms library. */
export const PLATFORM_FOLDER = /^libs\/voice-platforms\/src\/platform-[^/]+\//;
/**
 * Field names of the platforms' wire formats (platforms.md) that no other part of the system has: written
 * only in the platform's folder, so that a platform's dialect is read and written in one place.
 */
export const PLATFORM_WIRE_FIELDS = [
  // platform_a
  'call_analysis', 'disconnection_reason', 'from_number', 'transcript_object', 'begin_message', 'inbound_agent_id', 'llm_websocket_url', 'pagination_key',
  // platform_b
  'assistantId', 'endedReason', 'firstMessage', 'forwardingPhoneNumber', 'successEvaluation', 'transcriptType',
] as const;

/**
 * A platform's wire field named outside the platforms' folders (PLATFORM_FOLDER). Tests are exempt (they
 * speak the platforms' formats to check the mapping), and so are generated files (written from the OpenAPI
 * document, which shows the platforms' bodies).
 */
export function findWireFieldsOutsidePlatforms(files: SourceFile[], wireFields: readonly string[] = PLATFORM_WIRE_FIELDS): LayoutViolation[] {
  const violations: LayoutViolation[] = [];
  const named = new RegExp(`(?<![\\w-])(${wireFields.join('|')})(?![\\w-])`, 'g');
  for (const file of files) {
    const name = file.path.split('/').pop() ?? '';
    if (TEST_FILE.test(name) || GENERATED_FILE.test(name) || PLATFORM_FOLDER.test(file.path)) continue;
    const found = new Set(Array.from(file.text.matchAll(named), (match) => match[1]));
    for (const field of found) {
      violations.push({ file: file.path, rule: 'a platform wire field outside its platform folder', detail: `${field}: keep it in libs/voice-platforms/src/platform-<name>/` });
    }
  }
  return violations;
}

const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Every TypeScript and JavaScript source file under apps/ and libs/ (tests included, build output excluded). */
export function readSourceTree(root: string, tops: readonly string[] = ['apps', 'libs']): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry)) files.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  for (const top of tops) walk(resolve(root, top));
  return files;
}
