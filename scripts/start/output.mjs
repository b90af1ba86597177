// What the launcher prints, and where it runs from.
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const say = (msg) => process.stderr.write(`[start] ${msg}\n`);

export const die = (msg) => {
  process.stderr.write(`\n[start] cannot start: ${msg}\n`);
  process.exit(1);
};

/** A path as the user would type it: relative to the project when inside it. */
export const shown = (path) => {
  const rel = relative(root, path);
  return rel.startsWith('..') ? path : rel || '.';
};
