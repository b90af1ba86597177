import { describe, expect, it } from '@jest/globals';
import {
  canSpend,
  giveBack,
  LEASE_TTL_MS,
  leaseOf,
  REFILL_FAST_MS,
  sliceLimit,
  sliceToLease,
  spend,
  stateOf,
  type Grant,
  type Lease,
} from './rate-limit-leases.rules.js';
import type { BucketSpec } from './rate-limits.rules.js';

// 10 tokens a second, 1000 at most: slices of up to 50.
const bucket: BucketSpec = { name: 'key:k:reads', interval_s: 0.1, burst: 1000 };
const grant = (granted: number, over: Partial<Grant['state']> = {}): Grant => ({
  granted,
  state: { name: bucket.name, limit: 1000, remaining: 1000 - granted, reset_s: granted * 0.1, retry_s: 0, ...over },
});

/** Leases again and again at `everyMs` intervals, spending each slice whole, as a busy replica does; returns the sizes asked for. */
function leaseSizes(count: number, everyMs: number): number[] {
  const sizes: number[] = [];
  let lease: Lease | undefined;
  for (let i = 0, now = 0; i < count; i++, now += everyMs) {
    const want = sliceToLease(lease, now, bucket.burst);
    sizes.push(want);
    lease = spend(leaseOf(bucket, want, grant(want), 1, lease, now), want - 1);
  }
  return sizes;
}

describe('how big a slice a replica leases', () => {
  it('holds at most 5 % of the burst, at least one token: small buckets are leased one token at a time, as exactly as before', () => {
    expect([sliceLimit(1), sliceLimit(5), sliceLimit(39), sliceLimit(40), sliceLimit(600), sliceLimit(1_000_000)]).toEqual([1, 1, 1, 2, 30, 50_000]);
  });

  it('starts at one token and doubles while slices are spent within REFILL_FAST_MS, up to the limit', () => {
    expect(leaseSizes(9, REFILL_FAST_MS / 2)).toEqual([1, 2, 4, 8, 16, 32, 50, 50, 50]);
  });

  it('keeps its size when slices last longer, and shrinks to what was spent when one expires with tokens left', () => {
    expect(leaseSizes(4, REFILL_FAST_MS * 2)).toEqual([1, 1, 1, 1]);
    const busy: Lease = { ...leaseOf(bucket, 32, grant(32), 1, undefined, 0), tokens: 20 };
    expect(sliceToLease(busy, LEASE_TTL_MS - 1, bucket.burst)).toBe(32);
    expect(sliceToLease(busy, LEASE_TTL_MS, bucket.burst)).toBe(12);
    expect(sliceToLease({ ...busy, tokens: 32 }, LEASE_TTL_MS, bucket.burst)).toBe(1);
  });
});

describe('spending a slice', () => {
  it('reserves the leasing request its token, spends the rest one by one until it is empty or expired', () => {
    let lease = leaseOf(bucket, 3, grant(3), 1, undefined, 0);
    expect(lease.tokens).toBe(2);
    expect(canSpend(lease, 10)).toBe(true);
    lease = spend(spend(lease));
    expect(canSpend(lease, 10)).toBe(false);
    expect(canSpend(leaseOf(bucket, 3, grant(3), 1, undefined, 0), LEASE_TTL_MS)).toBe(false);
    expect(canSpend(undefined, 0)).toBe(false);
  });

  it('a refused bucket grants nothing and reserves nothing', () => {
    const lease = leaseOf(bucket, 4, grant(0, { remaining: 0, retry_s: 0.05 }), 0, undefined, 0);
    expect([lease.tokens, canSpend(lease, 0)]).toEqual([0, false]);
  });

  it('never holds more than the slice limit, however tokens come back or leases overlap', () => {
    const small: BucketSpec = { ...bucket, burst: 60 }; // slices of up to 3
    const held = leaseOf(small, 3, grant(3), 1, undefined, 0);
    expect(leaseOf(small, 3, grant(3), 1, held, 5).tokens).toBe(3);
    expect(giveBack(held, 5).tokens).toBe(3);
    expect(giveBack({ ...held, tokens: 3 }, 5).tokens).toBe(3);
    expect(giveBack(held, LEASE_TTL_MS).tokens).toBe(2);
    // An expired slice's tokens are not carried over.
    expect(leaseOf(small, 1, grant(1), 1, held, LEASE_TTL_MS).tokens).toBe(0);
  });
});

describe('the headers of a leased bucket', () => {
  it('with one replica and one-token slices, exactly the shared bucket: remaining, then refilling as time passes', () => {
    const small: BucketSpec = { name: 'key:k:reads', interval_s: 1, burst: 5 };
    const lease = leaseOf(small, 1, { granted: 1, state: { name: small.name, limit: 5, remaining: 4, reset_s: 1, retry_s: 0 } }, 1, undefined, 0);
    expect(stateOf(small.name, lease, 0)).toEqual({ name: small.name, limit: 5, remaining: 4, reset_s: 1, retry_s: 0 });
    expect(stateOf(small.name, lease, 3)).toMatchObject({ remaining: 4 });
    expect(stateOf(small.name, lease, 1000)).toMatchObject({ remaining: 5, reset_s: 0 });
  });

  it('counts this replica’s unspent tokens as the client’s, at most the burst', () => {
    const lease = leaseOf(bucket, 50, grant(50, { remaining: 950, reset_s: 5 }), 1, undefined, 0);
    expect(stateOf(bucket.name, lease, 0)).toMatchObject({ remaining: 950 + 49, reset_s: 5 });
    expect(stateOf(bucket.name, lease, 5000).remaining).toBe(1000);
  });
});

describe('the overshoot bound', () => {
  it('across N replicas, admitted in any interval ≤ burst + rate·T + N·sliceLimit(burst): 10 % of the burst over with 2', () => {
    // A simulation of the shared GCRA bucket (the SQL's arithmetic) and N replicas leasing from it, each admitting
    // whenever it can, so every replica holds a full slice at the end of the interval in the worst case.
    for (const replicas of [1, 2, 4]) {
      const rate = 10;
      const burst = 1000;
      let tat = 0;
      const take = (want: number, t: number) => {
        const granted = Math.max(0, Math.min(want, Math.floor((burst / rate - (Math.max(tat, t) - t)) * rate + 1e-9)));
        tat = Math.max(tat, t) + granted / rate;
        return grant(granted, { reset_s: Math.max(tat - t, 0) });
      };
      const leases: Array<Lease | undefined> = Array.from({ length: replicas }, () => undefined);
      let admitted = 0;
      const seconds = 20;
      for (let ms = 0; ms < seconds * 1000; ms += 5) {
        leases.forEach((lease, r) => {
          if (canSpend(lease, ms)) {
            leases[r] = spend(lease);
            admitted += 1;
            return;
          }
          const want = sliceToLease(lease, ms, burst);
          const g = take(want, ms / 1000);
          leases[r] = leaseOf(bucket, want, g, g.granted >= 1 ? 1 : 0, lease, ms);
          if (g.granted >= 1) admitted += 1;
        });
      }
      // Everything granted is spent or held; what is held is at most a slice per replica.
      const held = leases.reduce((sum, l) => sum + (l?.tokens ?? 0), 0);
      expect(held).toBeLessThanOrEqual(replicas * sliceLimit(burst));
      expect(admitted + held).toBeLessThanOrEqual(burst + rate * seconds + 1);
      expect(admitted).toBeGreaterThanOrEqual(burst + rate * seconds - replicas * sliceLimit(burst) - 1);
    }
    expect((2 * sliceLimit(1000)) / 1000).toBeLessThanOrEqual(0.1);
  });
});
