// The TypeScript build of every app and library, and the console's when it has none yet.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { die, root, say } from './output.mjs';

export function build() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) die('dependencies are not installed: run `npm install` first');
  say('building…');
  const result = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) die('the TypeScript build failed (see above)');
  // The operator console (served at /app) is built once; `npm run build` rebuilds it after a change.
  if (!existsSync(join(root, 'apps', 'console', 'dist', 'index.html'))) {
    say('building the console…');
    const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) die('the console build failed (see above)');
  }
}

/** @voice/service-kit as built: its configuration rules, transports and logging, shared with the apps. */
export async function loadServiceKit() {
  return import(pathToFileURL(join(root, 'libs', 'service-kit', 'dist', 'index.js')).href);
}
