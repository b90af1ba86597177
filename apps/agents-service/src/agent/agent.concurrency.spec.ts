import { describe, expect, it } from '@jest/globals';
import { ServiceFailure, WrongExpectedVersion } from '@voice/service-kit';
import { withOptimisticConcurrency } from './agent.concurrency.js';

const detailOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceFailure) return err.detail;
    throw err;
  }
  throw new Error('expected a failure');
};

describe('withOptimisticConcurrency', () => {
  it('retries a lost race once when no version was expected', async () => {
    let calls = 0;
    const result = await withOptimisticConcurrency(undefined, async () => {
      calls += 1;
      if (calls === 1) throw new WrongExpectedVersion('s', 1);
      return 'done';
    });
    expect([result, calls]).toEqual(['done', 2]);
  });

  it('gives up with concurrent_modification after the retry also loses', async () => {
    let calls = 0;
    const detail = await detailOf(
      withOptimisticConcurrency(undefined, async () => {
        calls += 1;
        throw new WrongExpectedVersion('s', calls);
      }),
    );
    expect([detail.code, calls]).toEqual(['concurrent_modification', 2]);
  });

  it('never retries when the caller named a version: precondition_failed', async () => {
    let calls = 0;
    const detail = await detailOf(
      withOptimisticConcurrency(3, async () => {
        calls += 1;
        throw new WrongExpectedVersion('s', 3);
      }),
    );
    expect([detail.code, calls]).toEqual(['precondition_failed', 1]);
  });

  it('passes other errors through untouched', async () => {
    const boom = new Error('boom');
    await expect(withOptimisticConcurrency(undefined, async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
