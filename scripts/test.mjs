#!/usr/bin/env node
// Runs the jest suites with ESM support. Integration and e2e tests need a real
// PostgreSQL and NATS (JetStream): TEST_DATABASE_URL and TEST_NATS_URL, defaulting
// to the local servers; each test file creates its own database and namespace.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const jestBin = require.resolve('jest').replace(/build[\/]index.js$/, 'bin/jest.js');
const env = {
  ...process.env,
  // What each file loads under --experimental-vm-modules accumulates in its worker for the whole run: the default
  // ~4 GB heap no longer held the suite in one process; two workers at up to 8 GB each fit the machine's 24 GB.
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings=ExperimentalWarning', '--max-old-space-size=8192']
    .filter(Boolean).join(' '),
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  TEST_NATS_URL: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
};
// The launcher and CLI tests run the built apps (as `npm start` does): build first
// (incremental, a few seconds when nothing changed).
const tsc = require.resolve('typescript/bin/tsc');
const build = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// The browser tests drive the operator console the gateway serves: rebuilt when a source is newer than the build.
const consoleBuild = spawnSync(process.execPath, ['scripts/build-console.mjs', '--if-stale'], { stdio: 'inherit' });
if (consoleBuild.status !== 0) process.exit(consoleBuild.status ?? 1);

// Jest's own summary is kept; its JSON result also gives a plain closing line ("tests: N passed, N failed")
// that CI systems which do not parse jest's output can read.
const resultFile = join(mkdtempSync(join(tmpdir(), 'jest-')), 'result.json');
// The suites mostly wait on real servers (PostgreSQL, NATS, child processes), so two workers overlap that waiting even
// on two cores, where jest alone would run every file in band; a run that says how to schedule itself is left alone.
const args = process.argv.slice(2);
const scheduled = args.some((arg) => /^(-i|--runInBand|--maxWorkers|-w)(=|$)/.test(arg) || arg === '--config');
const workers = scheduled ? [] : [`--maxWorkers=${Math.max(2, availableParallelism() - 1)}`];
const child = spawn(process.execPath, [jestBin, ...args, ...workers, '--json', `--outputFile=${resultFile}`], { stdio: 'inherit', env });
child.on('exit', (code, signal) => {
  try {
    const result = JSON.parse(readFileSync(resultFile, 'utf8'));
    const skipped = result.numPendingTests + result.numTodoTests;
    console.log(`tests: ${result.numPassedTests} passed, ${result.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  } catch {
    // No result file (jest crashed before writing it): its exit code says enough.
  }
  process.exit(signal ? 1 : code ?? 1);
});
