import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const resultsDir = resolve(root, 'bench/results');
const documents = ['BENCHMARKS.md', ...readdirSync(resultsDir).filter((f) => f.endsWith('.md')).map((f) => `bench/results/${f}`)];
const docsDir = resolve(root, 'docs');
const guides = ['README.md', ...readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks and inline code, where `[x](y)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2`… for repeats. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative links of a markdown text: `[text](target)` outside code, without web and mail addresses. */
function relativeLinks(markdown: string): string[] {
  const links = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  return links.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Why a link from `document` does not resolve, or undefined when it does. */
function brokenLink(document: string, target: string): string | undefined {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? resolve(root, document) : resolve(root, dirname(document), decodeURIComponent(path));
  if (relative(root, file).startsWith(`..${sep}`)) return `${target}: outside the repository`;
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  return headingAnchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `${target}: no heading with that anchor`;
}

describe('links of BENCHMARKS.md and bench/results/*.md', () => {
  it('finds the documents and their links', () => {
    expect(documents).toEqual(expect.arrayContaining(['BENCHMARKS.md', 'bench/results/history.md', 'bench/results/explain-plans.md']));
    expect(relativeLinks(readFileSync(resolve(root, 'BENCHMARKS.md'), 'utf8')).length).toBeGreaterThan(0);
  });

  it.each(documents)('every relative link of %s resolves to a file of the repository, and its anchor to a heading', (document) => {
    const broken = relativeLinks(readFileSync(resolve(root, document), 'utf8'))
      .map((target) => brokenLink(document, target))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('keeps BENCHMARKS.md at most 300 lines: full tables and plans belong in bench/results/', () => {
    expect(readFileSync(resolve(root, 'BENCHMARKS.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('pairs every start marker a bench writes between with its end marker, once', () => {
    for (const document of documents) {
      const text = readFileSync(resolve(root, document), 'utf8');
      const starts = [...text.matchAll(/<!-- ([\w-]+):start -->/g)].map((m) => m[1]);
      const ends = [...text.matchAll(/<!-- ([\w-]+):end -->/g)].map((m) => m[1]);
      expect({ document, markers: ends }).toEqual({ document, markers: starts });
      expect(new Set(starts).size).toBe(starts.length);
    }
  });
});

describe('links of README.md and docs/*.md', () => {
  it('finds the README and the docs pages', () => {
    expect(guides).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/platforms.md', 'docs/operations.md', 'docs/decisions.md']));
  });

  it.each(guides)('every relative link of %s resolves to a file of the repository, and its anchor to a heading', (document) => {
    const broken = relativeLinks(readFileSync(resolve(root, document), 'utf8'))
      .map((target) => brokenLink(document, target))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('links every docs page from the README', () => {
    const linked = new Set(relativeLinks(readFileSync(resolve(root, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    expect(guides.filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });

  it.each(guides.filter((page) => page.startsWith('docs/')))('%s opens with a table of contents naming each of its sections', (page) => {
    const outsideCode = readFileSync(resolve(root, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    const sections = [...outsideCode.matchAll(/^## +(.*?)\s*$/gm)].map((m) => [...headingAnchors(`## ${m[1]}`)][0]);
    const contents = relativeLinks(outsideCode.slice(0, outsideCode.search(/^## /m))).filter((target) => target.startsWith('#'));
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.filter((anchor) => !contents.includes(`#${anchor}`))).toEqual([]);
  });

  it('keeps README.md at most 250 lines: the rest belongs in docs/', () => {
    expect(readFileSync(resolve(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('the link checker itself', () => {
  it('names headings the way GitHub does', () => {
    const anchors = headingAnchors('# The whole stack over HTTP (20,000 conversations)\n## All of them — `bench/run.mjs`\n### Ingest\n### Ingest\n```\n# not a heading\n```');
    expect([...anchors]).toEqual(['the-whole-stack-over-http-20000-conversations', 'all-of-them--benchrunmjs', 'ingest', 'ingest-1']);
  });

  it('takes relative links only, and none from code', () => {
    const links = relativeLinks('[a](bench/results/stack.md#x) [b](https://example.com) `[c](nowhere.md)`\n```\n[d](nowhere.md)\n```\n[e](#local)');
    expect(links).toEqual(['bench/results/stack.md#x', '#local']);
  });

  it('reports a missing file and a missing anchor', () => {
    expect(brokenLink('BENCHMARKS.md', 'bench/results/nowhere.md')).toMatch(/no such file/);
    expect(brokenLink('BENCHMARKS.md', 'bench/results/stack.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('bench/results/stack.md', '../../BENCHMARKS.md#summary--the-performance-targets')).toBeUndefined();
  });
});
