/**
 * JSON log lines are written to stdout in batches, asynchronously: what is still in a batch when a process stops
 * must reach the file all the same. Real files, and a real process stopped with SIGTERM (the built service-kit).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { batchedLines, createLogger, flushLogs } from './logging.js';

const builtServiceKit = pathToFileURL(resolve(fileURLToPath(import.meta.url), '../../../dist/index.js')).href;
const dir = mkdtempSync(join(tmpdir(), 'batched-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function jsonLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('batched JSON log lines', () => {
  it('flushLogs writes out lines still waiting in a batch', async () => {
    const file = join(dir, 'flush.log');
    const logger = createLogger('spec', batchedLines(file));
    logger.level = 'info'; // the test runner silences logs by default
    // Five short lines are less than a batch: without a flush they would wait for the batch's maximum wait.
    for (let i = 0; i < 5; i++) logger.info({ i }, 'waiting in the batch');
    await flushLogs();
    expect(jsonLines(file).map((line) => line.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a process stopped with SIGTERM writes every line, up to one logged while it closes, whole and in order', async () => {
    const LINES = 5_000; // several hundred kB: batches are still being written when the stop begins
    const script = join(dir, 'service.mjs');
    writeFileSync(
      script,
      `import { createLogger, runService } from ${JSON.stringify(builtServiceKit)};
const logger = createLogger('logging-spec');
runService('logging-spec', async () => {
  // What a server does: keep the process alive until it is closed.
  const serving = setInterval(() => undefined, 60_000);
  return {
    service: {
      close: async () => {
        clearInterval(serving);
        for (let i = 0; i < ${LINES}; i++) logger.info({ i }, 'closing');
        logger.info('last line before exit');
      },
    },
  };
});
`,
    );
    const output = join(dir, 'stdout.log');
    const stdout = openSync(output, 'w');
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdio: ['ignore', stdout, 'pipe'],
    });
    closeSync(stdout);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      for (const deadline = Date.now() + 20_000; !readFileSync(output, 'utf8').includes('logging-spec ready'); ) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`not ready: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const lines = jsonLines(output);
    expect(lines.map((line) => line.msg)).toEqual([
      'logging-spec ready',
      'logging-spec stopping',
      ...Array.from({ length: LINES }, () => 'closing'),
      'last line before exit',
    ]);
    expect(lines.filter((line) => line.msg === 'closing').map((line) => line.i)).toEqual(Array.from({ length: LINES }, (_, i) => i));
  });
});
