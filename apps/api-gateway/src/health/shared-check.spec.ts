import { describe, expect, it } from '@jest/globals';
import { SharedCheck } from './shared-check.js';

/** A run the test finishes by hand, counting how often it was started. */
function controlledRuns() {
  const pending: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  let started = 0;
  const run = () => {
    started++;
    return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { run, started: () => started, finish: (v: string) => pending.shift()!.resolve(v), fail: (e: Error) => pending.shift()!.reject(e) };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('SharedCheck', () => {
  it('runs once for concurrent callers, who all get that run’s result', async () => {
    const runs = controlledRuns();
    const check = new SharedCheck<string>(() => 1000, () => 0);
    const answers = Promise.all([check.get(runs.run), check.get(runs.run), check.get(runs.run)]);
    expect(runs.started()).toBe(1);
    runs.finish('ok');
    expect(await answers).toEqual(['ok', 'ok', 'ok']);
  });

  it('hands out a result for as long as keepMs says, counted from when it came in, then runs again', async () => {
    let now = 0;
    const runs = controlledRuns();
    const check = new SharedCheck<string>((result) => (result === 'ok' ? 1000 : 250), () => now);
    const first = check.get(runs.run);
    now = 5_000; // a slow run: its result is still kept a full second after it came in
    runs.finish('ok');
    expect(await first).toBe('ok');

    now = 5_999;
    expect(await check.get(runs.run)).toBe('ok');
    expect(runs.started()).toBe(1);

    now = 6_000;
    const second = check.get(runs.run);
    expect(runs.started()).toBe(2);
    runs.finish('unavailable');
    expect(await second).toBe('unavailable');

    now = 6_249;
    expect(await check.get(runs.run)).toBe('unavailable');
    now = 6_250;
    const third = check.get(runs.run);
    expect(runs.started()).toBe(3);
    runs.finish('ok');
    expect(await third).toBe('ok');
  });

  it('keeps no failed run: its callers get the failure, the next caller runs again', async () => {
    const runs = controlledRuns();
    const check = new SharedCheck<string>(() => 1000, () => 0);
    const failing = [check.get(runs.run), check.get(runs.run)];
    runs.fail(new Error('probe threw'));
    for (const answer of failing) await expect(answer).rejects.toThrow('probe threw');
    await flush();
    const next = check.get(runs.run);
    expect(runs.started()).toBe(2);
    runs.finish('ok');
    expect(await next).toBe('ok');
  });
});
