/**
 * Every app bounds how far V8's old space grows past its live heap (HEAP_GROWTH_PERCENT, 50 by default), so a
 * process under sustained load keeps a resident size near its live heap instead of several times it. A real process
 * started by runService (the built service-kit), holding a live set and promoting a steady trickle of short-lived
 * objects the way requests in flight do.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { environment, readConfig } from '../config/config.js';

const builtServiceKit = pathToFileURL(resolve(fileURLToPath(import.meta.url), '../../../dist/index.js')).href;
const dir = mkdtempSync(join(tmpdir(), 'heap-growth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The service keeps ~50 MiB alive, then for a few seconds allocates replies it holds ~20 ms each (some survive two
// young-generation collections and are promoted), and prints its old space: live after a full collection, and the
// most it held while working.
const SERVICE = `import v8 from 'node:v8';
import { runService } from ${JSON.stringify(builtServiceKit)};
const oldSpaceUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
runService('heap-growth-spec', async () => {
  const kept = Array.from({ length: 100_000 }, (_, i) => ({ i, text: \`kept \${i} \`.padEnd(80, '.') }));
  globalThis.gc();
  const live = oldSpaceUsed();
  let most = live;
  const inFlight = [];
  const until = Date.now() + 5_000;
  await new Promise((done) => {
    const work = () => {
      for (let k = 0; k < 200; k++) {
        inFlight.push({ at: Date.now(), reply: JSON.parse(JSON.stringify({ rows: Array.from({ length: 20 }, (_, j) => ({ j, text: 'y'.repeat(100) })) })) });
      }
      while (inFlight.length && Date.now() - inFlight[0].at > 20) inFlight.shift();
      most = Math.max(most, oldSpaceUsed());
      if (Date.now() < until) setImmediate(work);
      else done();
    };
    work();
  });
  console.log(JSON.stringify({ liveMiB: live / 1048576, mostMiB: most / 1048576, kept: kept.length }));
  process.exit(0);
});
`;

async function runWorkingService(env: Record<string, string>): Promise<{ liveMiB: number; mostMiB: number }> {
  const script = join(dir, 'service.mjs');
  writeFileSync(script, SERVICE);
  const child = spawn(process.execPath, ['--expose-gc', script], {
    env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`the service exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as { liveMiB: number; mostMiB: number };
}

describe('heap growth', () => {
  it('keeps the old space of a working process within about twice its live heap by default', async () => {
    const { liveMiB, mostMiB } = await runWorkingService({ HEAP_GROWTH_PERCENT: '' });
    // At 50 % V8 collects once the old space is 1.5× what the last full collection kept; marking runs beside the
    // allocations, which go on meanwhile. V8's own heuristic (HEAP_GROWTH_PERCENT=0) let this same process reach
    // 4.6–4.8× its live heap on this machine.
    expect(liveMiB).toBeGreaterThan(30);
    expect(mostMiB).toBeLessThan(liveMiB * 2.2);
  }, 60_000);

  it('HEAP_GROWTH_PERCENT is an integer from 0 (V8’s own heuristic) to 1000, refused at start otherwise', () => {
    const read = (value?: string) => {
      const config = readConfig(value === undefined ? {} : { HEAP_GROWTH_PERCENT: value });
      return { percent: environment.heapGrowthPercent(config), done: () => config.done() };
    };
    expect(read().percent).toBeUndefined();
    expect(read('0').percent).toBe(0);
    expect(read('25').percent).toBe(25);
    for (const value of ['-1', '1001', 'half', '12.5']) {
      expect(read(value).done).toThrow(`HEAP_GROWTH_PERCENT must be an integer from 0 to 1000 (got "${value}")`);
    }
  });
});
