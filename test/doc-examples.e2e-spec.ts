import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentationExamples, type ShellExample } from './support/doc-examples.js';

/**
 * Every shell example of the documentation (README.md and the docs/*.md pages it links), run in order as a
 * newcomer pastes them into one terminal, against a fresh zero-setup `npm start` (empty DATA_DIR, free ports).
 * The only changes: the start's address for http://127.0.0.1:3000, its demo key for vk_…, its DATA_DIR for
 * .data/. curl gets --fail-with-body, so a non-2xx answer fails the example as a failing command does.
 */
const root = resolve(fileURLToPath(import.meta.url), '../..');
const examples = documentationExamples(root);
/** Operator-only examples (docker, the test suite, a stream that runs until Ctrl-C…) may be skipped, but few. */
const MOST_SKIPS = 6;

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

interface Run {
  code: number | null;
  output: string;
}

/** A newcomer's environment: none of the service's variables set, the start's DATA_DIR. */
function newcomerEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, NO_COLOR: '1' };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'ADMIN_TOKEN', 'VOICE_API_URL', 'VOICE_API_KEY', 'PORT', 'LOG_LEVEL', 'NATS_NAMESPACE', 'npm_config_prefix']) delete env[name];
  return env;
}

describe('the documentation shell examples work as pasted against a fresh npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-doc-examples-data-'));
  const workDir = mkdtempSync(join(tmpdir(), 'voice-doc-examples-work-'));
  // mkdtemp makes folders private; the embedded PostgreSQL (run as `postgres` when we are root) must enter it.
  chmodSync(dataDir, 0o755);
  const state = join(workDir, '.shell-state');
  let start: ChildProcess | undefined;
  let startOutput = '';
  let url = '';
  let demoKey = '';

  beforeAll(async () => {
    const env = { ...newcomerEnv(dataDir), PORT: '0', EMBEDDED_PG_PORT: String(await freePort()), PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0', LOG_LEVEL: 'warn' };
    start = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    start.stdout!.on('data', (d) => (startOutput += d));
    start.stderr!.on('data', (d) => (startOutput += d));
    for (const deadline = Date.now() + 120_000; ; ) {
      const up = startOutput.match(/is up in [\d.]+ s — (http:\/\/\S+)/);
      const key = startOutput.match(/demo key:\s+(vk_\w+)/);
      if (up && key) {
        [url, demoKey] = [up[1], key[1]];
        break;
      }
      if (start.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up: ${startOutput}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    writeFileSync(state, '');
  }, 150_000);

  afterAll(async () => {
    if (start && start.exitCode === null) {
      const exited = new Promise((r) => start!.once('exit', r));
      start.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }, 60_000);

  /** One example in bash, with what the examples before it exported (as in one terminal). */
  function runExample(example: ShellExample): Promise<Run> {
    const code = example.code.replaceAll('http://127.0.0.1:3000', url).replaceAll('vk_…', demoKey).replaceAll('.data/', `${dataDir}/`);
    const script = [
      'set -eo pipefail',
      `source '${state}'`,
      // Non-2xx answers are failures; npm runs the project's scripts wherever this shell is.
      'curl() { command curl --fail-with-body --show-error "$@"; }',
      `npm() { command npm --prefix '${root}' "$@"; }`,
      'set -a',
      code,
      'set +a',
      `export -p > '${state}'`,
    ].join('\n');
    return new Promise((ok) => {
      const child = spawn('bash', ['-c', script], { cwd: workDir, env: newcomerEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('close', (exitCode) => ok({ code: exitCode, output }));
    });
  }

  it('finds the examples, and skips few of them, each with its reason', () => {
    expect(examples.filter((e) => !e.skip).length).toBeGreaterThanOrEqual(10);
    const skipped = examples.filter((e) => e.skip);
    expect(skipped.length).toBeLessThanOrEqual(MOST_SKIPS);
    for (const e of skipped) expect(e.skip!.length).toBeGreaterThan(5);
  });

  for (const example of examples) {
    const title = `${example.file}:${example.line} ${example.code.split('\n').find((l) => l.trim() && !l.trim().startsWith('#'))?.trim().slice(0, 70) ?? ''}`;
    if (example.skip) {
      it.skip(`${title} (skipped: ${example.skip})`, () => undefined);
      continue;
    }
    it(
      title,
      async () => {
        const run = await runExample(example);
        if (run.code !== 0) throw new Error(`${example.file}:${example.line} exited ${run.code}:\n${run.output}`);
        expect(existsSync(state)).toBe(true);
      },
      180_000,
    );
  }
});
