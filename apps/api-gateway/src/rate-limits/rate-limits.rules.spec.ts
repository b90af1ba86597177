import { describe, expect, it } from '@jest/globals';
import {
  budgetOf,
  bucketsFor,
  DEFAULT_RATE_LIMITS,
  failedAuthBucket,
  planLimitProblems,
  rateLimitHeaders,
  rateLimitSettings,
  refusalHeaders,
  refusalOf,
  verdictOf,
  type BucketState,
} from './rate-limits.rules.js';

const state = (over: Partial<BucketState>): BucketState => ({ name: 'b', limit: 10, remaining: 5, reset_s: 0.5, retry_s: 0, ...over });

describe('budgetOf', () => {
  it('reads are GET and HEAD, call ingest is POST /v1/call-events, everything else writes', () => {
    expect(budgetOf('GET', '/v1/agents')).toBe('reads');
    expect(budgetOf('HEAD', '/v1/conversations/x')).toBe('reads');
    expect(budgetOf('POST', '/v1/call-events')).toBe('call_events');
    expect(budgetOf('post', '/v1/call-events/')).toBe('call_events');
    expect(budgetOf('POST', '/v1/agents')).toBe('writes');
    expect(budgetOf('PATCH', '/v1/agents/agt_1')).toBe('writes');
    expect(budgetOf('PUT', '/v1/integrations/platform_a')).toBe('writes');
    expect(budgetOf('DELETE', '/v1/call-events')).toBe('writes');
  });
});

describe('rateLimitSettings', () => {
  it('keeps the defaults where nothing is set and replaces what is', () => {
    expect(rateLimitSettings()).toEqual(DEFAULT_RATE_LIMITS);
    const s = rateLimitSettings({ reads: { per_second: 5, burst: undefined }, accountFactor: 1, failedAuth: { burst: 3 }, enabled: false });
    expect(s.perKey.reads).toEqual({ per_second: 5, burst: DEFAULT_RATE_LIMITS.perKey.reads.burst });
    expect(s.perKey.writes).toEqual(DEFAULT_RATE_LIMITS.perKey.writes);
    expect(s.failedAuth).toEqual({ per_second: DEFAULT_RATE_LIMITS.failedAuth.per_second, burst: 3 });
    expect([s.accountFactor, s.enabled]).toEqual([1, false]);
  });
});

describe('planLimitProblems', () => {
  it('accepts budgets of integers per plan', () => {
    expect(planLimitProblems(undefined)).toEqual([]);
    expect(planLimitProblems({ enterprise: { reads: { per_second: 500, burst: 1000 }, call_events: { per_second: 1, burst: 1 } } })).toEqual([]);
  });

  it('names every problem', () => {
    expect(planLimitProblems([])).toEqual(['must be a JSON object of plan names']);
    expect(planLimitProblems({ a: 3, b: { reeds: { per_second: 1, burst: 1 } }, c: { writes: { per_second: 0.5, burst: 1 } }, d: { reads: { per_second: 1, burst: 1, x: 1 } } })).toEqual([
      'plan a must be an object of budgets (reads, writes, call_events)',
      'plan b: unknown budget reeds (one of reads, writes, call_events)',
      'plan c: writes must be { "per_second": n, "burst": n } with integers from 1 to 1000000',
      'plan d: reads must be { "per_second": n, "burst": n } with integers from 1 to 1000000',
    ]);
  });
});

describe('bucketsFor', () => {
  const caller = { key_id: 'key_1', account_id: 'acc_1', plan: 'starter' };

  it('takes from the key and from the account, which holds accountFactor times as much', () => {
    const s = rateLimitSettings({ reads: { per_second: 10, burst: 20 }, accountFactor: 3 });
    expect(bucketsFor(s, caller, 'reads')).toEqual([
      { name: 'key:key_1:reads', interval_s: 0.1, burst: 20 },
      { name: 'account:acc_1:reads', interval_s: 1 / 30, burst: 60 },
    ]);
  });

  it('uses the plan’s limit for a budget it names, the default for the others', () => {
    const s = rateLimitSettings({ accountFactor: 1, plans: { pro: { writes: { per_second: 2, burst: 4 } } } });
    expect(bucketsFor(s, { ...caller, plan: 'pro' }, 'writes')[0]).toEqual({ name: 'key:key_1:writes', interval_s: 0.5, burst: 4 });
    expect(bucketsFor(s, { ...caller, plan: 'pro' }, 'reads')[0].burst).toBe(DEFAULT_RATE_LIMITS.perKey.reads.burst);
  });

  it('keeps budgets apart: each has buckets of its own', () => {
    const names = (['reads', 'writes', 'call_events'] as const).flatMap((b) => bucketsFor(DEFAULT_RATE_LIMITS, caller, b).map((x) => x.name));
    expect(new Set(names).size).toBe(6);
    expect(failedAuthBucket(DEFAULT_RATE_LIMITS, '::1')).toEqual({ name: 'address:::1:failed_auth', interval_s: 0.05, burst: 40 });
  });
});

describe('verdictOf and the headers', () => {
  it('describes the most constrained bucket', () => {
    const v = verdictOf(true, [state({ name: 'key', limit: 20, remaining: 12, reset_s: 0.8 }), state({ name: 'account', limit: 60, remaining: 3, reset_s: 2.1 })]);
    expect(v).toEqual({ allowed: true, headers: { 'RateLimit-Limit': '60', 'RateLimit-Remaining': '3', 'RateLimit-Reset': '3' }, refusedForMs: 0 });
  });

  it('a refusal says 0 remaining and when to retry (at least 1 s), and holds until the slowest bucket admits', () => {
    const v = verdictOf(false, [state({ limit: 5, remaining: 0, reset_s: 4.96, retry_s: 0.16 }), state({ limit: 15, remaining: 4, reset_s: 1, retry_s: 0 })]);
    expect(v.headers).toEqual({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '5', 'Retry-After': '1' });
    expect(v.refusedForMs).toBeCloseTo(160);
    expect(verdictOf(false, [state({ remaining: 0, retry_s: 2.5 })]).headers['Retry-After']).toBe('3');
  });

  it('a whole number of seconds stays that number (no float noise rounding it up)', () => {
    expect(rateLimitHeaders(10, 3, 2.0000000001)['RateLimit-Reset']).toBe('2');
    expect(rateLimitHeaders(10, -1, 0)).toEqual({ 'RateLimit-Limit': '10', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '0' });
  });

  it('a remembered refusal counts down and then ends', () => {
    const refusal = refusalOf(verdictOf(false, [state({ limit: 5, remaining: 0, reset_s: 3, retry_s: 1.5 })]), 10_000);
    expect(refusalHeaders(refusal, 10_000)).toEqual({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3', 'Retry-After': '2' });
    expect(refusalHeaders(refusal, 11_000)).toEqual({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2', 'Retry-After': '1' });
    expect(refusalHeaders(refusal, 11_500)).toBeUndefined();
    expect(refusalHeaders(undefined, 0)).toBeUndefined();
  });
});
