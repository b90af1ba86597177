import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A shell example of the documentation: a ```bash or ```sh block. */
export interface ShellExample {
  /** The markdown file, relative to the project. */
  file: string;
  /** Line of the opening fence (1-based), for messages. */
  line: number;
  code: string;
  /** Why it is not run, from a `<!-- doc-test: skip (reason) -->` comment just before the block. */
  skip?: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
const SKIP = /^<!--\s*doc-test:\s*skip\s*\(([^)]*)\)\s*-->$/;
const SHELL = new Set(['bash', 'sh', 'shell']);

/**
 * Every ```bash / ```sh block of one markdown text, in order. A block is skipped when the last non-blank line
 * before it is `<!-- doc-test: skip (reason) -->`; a skip without a reason is refused, so each one says why.
 */
export function shellExamples(file: string, markdown: string): ShellExample[] {
  const lines = markdown.split('\n');
  const examples: ShellExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, , fence, language] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    if (SHELL.has(language.toLowerCase())) {
      let before = i - 1;
      while (before >= 0 && lines[before].trim() === '') before--;
      const marker = before >= 0 ? SKIP.exec(lines[before].trim()) : null;
      if (marker && !marker[1].trim()) throw new Error(`${file}:${before + 1}: a doc-test skip must say why: <!-- doc-test: skip (reason) -->`);
      examples.push({ file, line: i + 1, code: lines.slice(i + 1, end).join('\n'), ...(marker ? { skip: marker[1].trim() } : {}) });
    }
    i = end;
  }
  return examples;
}

/** The docs/*.md pages a markdown text links to (relative links), as paths relative to the project. */
export function linkedDocPages(root: string, file: string, markdown: string): string[] {
  const pages = new Set<string>();
  for (const [, target] of markdown.matchAll(/\]\(([^)\s#]+\.md)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const path = relative(root, resolve(dirname(join(root, file)), target));
    if (/^docs\/[^/]+\.md$/.test(path)) pages.add(path);
  }
  return [...pages];
}

/**
 * The shell examples of README.md and of every docs/*.md page reachable from it through links, each page once,
 * in reading order.
 */
export function documentationExamples(root: string, entry = 'README.md'): ShellExample[] {
  const seen = new Set<string>();
  const examples: ShellExample[] = [];
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(join(root, file))) return;
    seen.add(file);
    const markdown = readFileSync(join(root, file), 'utf8');
    examples.push(...shellExamples(file, markdown));
    for (const page of linkedDocPages(root, file, markdown)) visit(page);
  };
  visit(entry);
  return examples;
}
