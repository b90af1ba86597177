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

/** Whether the process exists (EPERM: it does, owned by another user). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** `{ api, platform_a?, platform_b? }` of the `npm start` running on DATA_DIR, or {} when none runs there. */
export function runningStart() {
  const ports = readJson(join(dataDir(), 'ports.json'));
  if (!ports || typeof ports.api !== 'string') return {};
  // A start killed with SIGKILL could not remove its file.
  if (Number.isInteger(ports.pid) && ports.pid > 0 && !alive(ports.pid)) return {};
  return { api: ports.api, platform_a: ports.platform_a, platform_b: ports.platform_b };
}

/** The demo account's API key that `npm start` created in DATA_DIR, if any. */
export function demoApiKey() {
  const demo = readJson(join(dataDir(), 'demo.json'));
  return typeof demo?.apiKey === 'string' ? demo.apiKey : undefined;
}
