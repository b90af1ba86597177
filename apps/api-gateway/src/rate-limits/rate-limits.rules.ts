/**
 * Rate limits (OWASP API4): which budget a request spends, which buckets it takes from, and what the client is
 * told. The buckets are GCRA token buckets kept in PostgreSQL (rate-limits.store.ts) so that every gateway
 * replica spends from the same ones; this file is the arithmetic around them, pure.
 */

/** Reads, writes and call ingest are separate budgets: a platform posting calls must not starve the dashboard, nor the reverse. */
export const BUDGETS = ['reads', 'writes', 'call_events'] as const;
export type Budget = (typeof BUDGETS)[number];

/** A token bucket: refills `per_second` tokens a second, holds at most `burst`. */
export interface BucketLimit {
  per_second: number;
  burst: number;
}
export type BudgetLimits = Record<Budget, BucketLimit>;

export interface RateLimitSettings {
  enabled: boolean;
  /** What one API key may spend, per budget. */
  perKey: BudgetLimits;
  /** An account may spend this many times a key's budget in all (its keys together). */
  accountFactor: number;
  /** Failed authentications (no key, an unknown or revoked key, a wrong admin token) per client address. */
  failedAuth: BucketLimit;
  /** Per-key budgets of the accounts of a plan (the admin's `plan`), replacing the defaults budget by budget. */
  plans: Record<string, Partial<BudgetLimits>>;
}

/** Generous enough for any interactive or integration use (and every test that is not about limits); tight enough to stop a runaway client. */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  enabled: true,
  perKey: {
    reads: { per_second: 100, burst: 200 },
    writes: { per_second: 50, burst: 100 },
    call_events: { per_second: 100, burst: 200 },
  },
  accountFactor: 3,
  failedAuth: { per_second: 20, burst: 40 },
  plans: {},
};

/** Overrides as startGateway takes them (and the environment gives them): every field optional. */
export interface RateLimitOptions {
  enabled?: boolean;
  reads?: Partial<BucketLimit>;
  writes?: Partial<BucketLimit>;
  call_events?: Partial<BucketLimit>;
  accountFactor?: number;
  failedAuth?: Partial<BucketLimit>;
  /** Unchecked input (RATE_LIMIT_PLANS); see planLimitProblems. */
  plans?: unknown;
}

const merged = (base: BucketLimit, over: Partial<BucketLimit> | undefined): BucketLimit => ({
  per_second: over?.per_second ?? base.per_second,
  burst: over?.burst ?? base.burst,
});

/** The settings in force: the defaults with whatever the options set. Assumes the plans were checked (planLimitProblems). */
export function rateLimitSettings(options: RateLimitOptions = {}, base: RateLimitSettings = DEFAULT_RATE_LIMITS): RateLimitSettings {
  return {
    enabled: options.enabled ?? base.enabled,
    perKey: {
      reads: merged(base.perKey.reads, options.reads),
      writes: merged(base.perKey.writes, options.writes),
      call_events: merged(base.perKey.call_events, options.call_events),
    },
    accountFactor: options.accountFactor ?? base.accountFactor,
    failedAuth: merged(base.failedAuth, options.failedAuth),
    plans: (options.plans as RateLimitSettings['plans'] | undefined) ?? base.plans,
  };
}

const isLimit = (value: unknown): value is BucketLimit => {
  const v = value as Record<string, unknown> | null;
  const positive = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 1 && (n as number) <= 1_000_000;
  return typeof v === 'object' && v !== null && Object.keys(v).every((k) => k === 'per_second' || k === 'burst') && positive(v.per_second) && positive(v.burst);
};

/** What is wrong with a plans value (`{ "<plan>": { "reads": { "per_second": 500, "burst": 1000 }, … } }`); empty when it is valid. */
export function planLimitProblems(plans: unknown): string[] {
  if (plans === undefined) return [];
  if (typeof plans !== 'object' || plans === null || Array.isArray(plans)) return ['must be a JSON object of plan names'];
  const problems: string[] = [];
  for (const [plan, budgets] of Object.entries(plans)) {
    if (typeof budgets !== 'object' || budgets === null || Array.isArray(budgets)) {
      problems.push(`plan ${plan} must be an object of budgets (${BUDGETS.join(', ')})`);
      continue;
    }
    for (const [budget, limit] of Object.entries(budgets)) {
      if (!(BUDGETS as readonly string[]).includes(budget)) problems.push(`plan ${plan}: unknown budget ${budget} (one of ${BUDGETS.join(', ')})`);
      else if (!isLimit(limit)) problems.push(`plan ${plan}: ${budget} must be { "per_second": n, "burst": n } with integers from 1 to 1000000`);
    }
  }
  return problems;
}

/** GET and HEAD read; POST /v1/call-events is ingest; everything else writes. */
export function budgetOf(method: string, path: string): Budget {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return 'reads';
  if (m === 'POST' && path.replace(/\/+$/, '').toLowerCase() === '/v1/call-events') return 'call_events';
  return 'writes';
}

/** A bucket as the store takes it: GCRA's emission interval (seconds per token) and its capacity. */
export interface BucketSpec {
  name: string;
  interval_s: number;
  burst: number;
}

const spec = (name: string, limit: BucketLimit): BucketSpec => ({ name, interval_s: 1 / limit.per_second, burst: limit.burst });

export interface LimitedCaller {
  key_id: string;
  account_id: string;
  plan: string;
}

/** The key's own bucket and the account's (factor times the key's), for one budget; the plan may override the key's limit. */
export function bucketsFor(settings: RateLimitSettings, caller: LimitedCaller, budget: Budget): BucketSpec[] {
  const key = settings.plans[caller.plan]?.[budget] ?? settings.perKey[budget];
  const account = { per_second: key.per_second * settings.accountFactor, burst: key.burst * settings.accountFactor };
  return [spec(`key:${caller.key_id}:${budget}`, key), spec(`account:${caller.account_id}:${budget}`, account)];
}

export function failedAuthBucket(settings: RateLimitSettings, address: string): BucketSpec {
  return spec(`address:${address}:failed_auth`, settings.failedAuth);
}

/** One bucket after a take: the store's answer. */
export interface BucketState {
  name: string;
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset_s: number;
  /** Seconds until this bucket would admit one more request (0 when it admits now). */
  retry_s: number;
}

export interface Verdict {
  allowed: boolean;
  /** RateLimit-Limit / -Remaining / -Reset (and Retry-After when refused), as sent. */
  headers: Record<string, string>;
  /** Milliseconds the refusal holds for sure (GCRA state only moves later), so a replica may refuse locally until then. */
  refusedForMs: number;
}

/** HTTP wants whole seconds; a refusal says at least 1, so a client never retries at once. */
const seconds = (s: number) => String(Math.max(0, Math.ceil(s - 1e-9)));

export function rateLimitHeaders(limit: number, remaining: number, resetS: number): Record<string, string> {
  return { 'RateLimit-Limit': String(limit), 'RateLimit-Remaining': String(Math.max(0, remaining)), 'RateLimit-Reset': seconds(resetS) };
}

/**
 * The answer to a request that took from these buckets (together: all or none). The headers describe the most
 * constrained bucket (the fewest tokens left, then the longest to refill): the one the client must pace itself by.
 */
export function verdictOf(allowed: boolean, states: BucketState[]): Verdict {
  const binding = [...states].sort((a, b) => a.remaining - b.remaining || b.reset_s - a.reset_s)[0];
  if (!binding) return { allowed: true, headers: {}, refusedForMs: 0 };
  const headers = rateLimitHeaders(binding.limit, allowed ? binding.remaining : 0, binding.reset_s);
  if (allowed) return { allowed, headers, refusedForMs: 0 };
  const retry = Math.max(...states.map((s) => s.retry_s));
  return { allowed, headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retry - 1e-9))) }, refusedForMs: retry * 1000 };
}

/** A refusal remembered locally: same headers, counted down from when it was decided. */
export interface Refusal {
  until_ms: number;
  limit: number;
  reset_at_ms: number;
}

export function refusalOf(verdict: Verdict, nowMs: number): Refusal {
  return {
    until_ms: nowMs + verdict.refusedForMs,
    limit: Number(verdict.headers['RateLimit-Limit']),
    reset_at_ms: nowMs + Number(verdict.headers['RateLimit-Reset']) * 1000,
  };
}

/** The headers of a refusal remembered locally, now; undefined once it is over. */
export function refusalHeaders(refusal: Refusal | undefined, nowMs: number): Record<string, string> | undefined {
  if (!refusal || nowMs >= refusal.until_ms) return undefined;
  return {
    ...rateLimitHeaders(refusal.limit, 0, (refusal.reset_at_ms - nowMs) / 1000),
    'Retry-After': String(Math.max(1, Math.ceil((refusal.until_ms - nowMs) / 1000 - 1e-9))),
  };
}
