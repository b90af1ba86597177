import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PLATFORM_RETRY_POLICY, retryDelay } from './retry-delay.js';

describe('retryDelay', () => {
  const highest = () => 0.999999;
  const lowest = () => 0;

  it('doubles the bound from 500 ms and stops at 60 s', () => {
    expect([0, 1, 2, 3, 6, 7, 20, 1000].map((attempt) => retryDelay(attempt, undefined, PLATFORM_RETRY_POLICY, highest))).toEqual([
      499, 999, 1999, 3999, 31999, 59999, 59999, 59999,
    ]);
  });

  it('draws anywhere between 0 and the bound (full jitter)', () => {
    expect(retryDelay(5, undefined, PLATFORM_RETRY_POLICY, lowest)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), (attempt) => {
        const delay = retryDelay(attempt);
        return delay >= 0 && delay < Math.min(60_000, 500 * 2 ** attempt);
      }),
    );
  });

  it('waits at least what Retry-After said, up to 15 minutes', () => {
    expect(retryDelay(0, 7000, PLATFORM_RETRY_POLICY, highest)).toBe(7000);
    expect(retryDelay(10, 7000, PLATFORM_RETRY_POLICY, highest)).toBe(59999);
    expect(retryDelay(0, 86_400_000, PLATFORM_RETRY_POLICY, lowest)).toBe(15 * 60_000);
  });

  it('ignores a meaningless Retry-After', () => {
    expect(retryDelay(0, 0, PLATFORM_RETRY_POLICY, highest)).toBe(499);
    expect(retryDelay(0, Number.NaN, PLATFORM_RETRY_POLICY, highest)).toBe(499);
  });
});
