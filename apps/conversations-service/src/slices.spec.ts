import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service's top-level folders (one per use case, plus the shared conversation,
 * config and database layers) depend on each other one way only: a cycle between
 * two folders means neither can be understood, moved or tested without the other.
 * Files directly in src/ (the module, app and entry point) wire everything and are
 * left out; tests count like any other file.
 */

const IMPORT = /(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Folder → the other folders its files import (relative imports only). */
export function folderGraph(files: ReadonlyArray<{ path: string; text: string }>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const [folder] = file.path.split('/');
    if (!file.path.includes('/')) continue;
    const edges = graph.get(folder) ?? new Set<string>();
    graph.set(folder, edges);
    for (const match of file.text.matchAll(IMPORT)) {
      const target = join(dirname(file.path), match[1] ?? match[2]).split(sep).join('/');
      if (target.startsWith('..') || !target.includes('/')) continue;
      const [to] = target.split('/');
      if (to !== folder) edges.add(to);
    }
  }
  return graph;
}

/** Every group of folders that reach each other (strongly connected, more than one folder), each sorted. */
export function folderCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

function sourceFiles(root: string): Array<{ path: string; text: string }> {
  const files: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.ts')) files.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  walk(root);
  return files;
}

describe('slice folders of conversations-service', () => {
  it('import each other without a cycle', () => {
    const src = resolve(dirname(fileURLToPath(import.meta.url)));
    const graph = folderGraph(sourceFiles(src));
    expect(graph.has('record-call-events')).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });

  it('finds a cycle through several folders, and none in a one-way chain', () => {
    const files = [
      { path: 'a/x.ts', text: `import { y } from '../b/y.js';` },
      { path: 'b/y.ts', text: `import type { z } from '../c/z.js';` },
      { path: 'c/z.ts', text: `export { x } from '../a/x.js';\nimport { main } from '../main.js';` },
      { path: 'd/w.ts', text: `import { x } from '../a/x.js';\nimport { v } from './v.js';` },
    ];
    expect(folderCycles(folderGraph(files))).toEqual([['a', 'b', 'c']]);
    expect(folderCycles(folderGraph(files.slice(0, 2).concat(files.slice(3))))).toEqual([]);
  });
});
