#!/usr/bin/env node
// `npm run bench [-- --quick]` — every benchmark that compares the service with its raw baseline:
// the whole stack over HTTP (bench:stack), outbound events (bench:outbound), the list handler at a million
// conversations (bench:list), then an erasure request in an account of a million (bench:erasure). `--quick` runs
// the stack, outbound and erasure benches at a small size (CI runs it: it proves
// the harnesses work and prints the tables; the figures of a quick run are not the ones BENCHMARKS.md reports).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const runs = quick
  ? [['stack.bench.mjs', '--quick'], ['outbound-events.bench.mjs', '--quick'], ['erasure.bench.mjs', '--quick']]
  : [['stack.bench.mjs'], ['outbound-events.bench.mjs'], ['conversations-list.bench.mjs'], ['erasure.bench.mjs']];
for (const [script, ...args] of runs) {
  const { status } = spawnSync(process.execPath, [join(here, script), ...args], { stdio: 'inherit' });
  if (status !== 0) {
    console.error(`bench: ${script} failed (exit ${status})`);
    process.exit(status ?? 1);
  }
}
