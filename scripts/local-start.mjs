// What a running `npm start` left in its DATA_DIR for the operator tools: where it listens (ports.json, written
// once it is healthy and removed when it stops) and the demo account's key (demo.json). The simulator and the CLI
// read them so they work as pasted after `npm start`, whichever ports it ended up on.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** DATA_DIR as `npm start` reads it: relative to the project. */
export const dataDir = () => resolve(root, process.env.DATA_DIR?.trim() || '.data');

function readJson(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // half written or hand-edited: as if absent
  }
}

/** `{ api, platform_a?, platform_b? }` of the `npm start` running on DATA_DIR, or {} when none says so. */
export function runningStart() {
  const ports = readJson(join(dataDir(), 'ports.json'));
  if (!ports || typeof ports.api !== 'string') return {};
  return { api: ports.api, platform_a: ports.platform_a, platform_b: ports.platform_b };
}

/** The demo account's API key that `npm start` created in DATA_DIR, if any. */
export function demoApiKey() {
  const demo = readJson(join(dataDir(), 'demo.json'));
  return typeof demo?.apiKey === 'string' ? demo.apiKey : undefined;
}
