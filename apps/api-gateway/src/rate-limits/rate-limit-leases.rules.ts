/**
 * Leased slices of the shared buckets: the arithmetic, pure. A gateway replica takes a slice of a bucket's tokens
 * from PostgreSQL in one call (rate_limit_lease) and spends it in memory, one token a request; it goes back to
 * PostgreSQL only when the slice is spent or has expired. This is token leasing as quota servers do it (Google's
 * Doorman, the batching of distributed token buckets): the shared bucket stays the single authority, replicas
 * spend only what it granted them.
 *
 * The overshoot bound. The shared GCRA bucket grants at most `burst + rate·T` tokens in any T seconds. A replica
 * admits only with tokens it was granted, and never holds more than `sliceLimit(burst)` unspent (5 % of the burst,
 * at least 1); tokens granted before an interval and spent within it are the only excess. So across N replicas, in
 * any T seconds at most `burst·(1 + N·5 %) + rate·T` requests are admitted: 10 % of the burst over with 2 replicas,
 * and over a long run the configured rate exactly. The reverse error (a slice expiring unspent) refuses at most a
 * slice too many, and an idle slice expires within LEASE_TTL_MS.
 */
import type { BucketSpec, BucketState } from './rate-limits.rules.js';

/** Of a bucket's burst, the largest share one replica may hold unspent: with N replicas the overshoot is at most N times this. */
export const SLICE_SHARE = 0.05;
/** A slice spent faster than this was too small: the next one doubles (up to the limit). */
export const REFILL_FAST_MS = 100;
/** Unspent tokens are dropped this long after the lease: a replica a client left does not hold its share for long. */
export const LEASE_TTL_MS = 1000;

/** The most tokens of a bucket one replica holds at a time; buckets of a few tokens are leased one by one, as exactly as before. */
export function sliceLimit(burst: number): number {
  return Math.max(1, Math.floor(burst * SLICE_SHARE));
}

/** A slice held by this replica. Times are this process's clock (ms). */
export interface Lease {
  limit: number;
  interval_ms: number;
  /** Tokens wanted at the last lease (the slice size this replica is growing or shrinking). */
  wanted: number;
  /** Tokens granted at the last lease. */
  granted: number;
  /** Unspent tokens of this replica. */
  tokens: number;
  leased_at_ms: number;
  expires_at_ms: number;
  /** When the shared bucket is full again, as of the last lease (its GCRA tat). */
  full_at_ms: number;
}

/**
 * How many tokens to ask for: one the first time; twice the last slice when it lasted under REFILL_FAST_MS (a busy
 * key reaches its limit in a few leases); what was actually spent when it expired with tokens left; never more than
 * sliceLimit(burst).
 */
export function sliceToLease(previous: Lease | undefined, nowMs: number, burst: number): number {
  const cap = sliceLimit(burst);
  if (!previous) return 1;
  const size = Math.max(1, Math.min(cap, previous.wanted));
  if (previous.tokens > 0 && nowMs >= previous.expires_at_ms) return Math.max(1, Math.min(size, previous.granted - previous.tokens));
  if (nowMs - previous.leased_at_ms < REFILL_FAST_MS) return Math.min(cap, size * 2);
  return size;
}

/** The shared bucket's answer to a lease. */
export interface Grant {
  granted: number;
  state: BucketState;
}

/**
 * The slice after a grant. `reserved` tokens are already promised to the request that leased (it spends them
 * without racing the others waiting); what is left of an older slice is kept, the whole never above the slice limit.
 */
export function leaseOf(spec: BucketSpec, wanted: number, grant: Grant, reserved: number, previous: Lease | undefined, nowMs: number): Lease {
  const left = previous && nowMs < previous.expires_at_ms ? previous.tokens : 0;
  return {
    limit: spec.burst,
    interval_ms: spec.interval_s * 1000,
    wanted,
    granted: grant.granted,
    tokens: Math.min(sliceLimit(spec.burst), left + grant.granted - reserved),
    leased_at_ms: nowMs,
    expires_at_ms: nowMs + LEASE_TTL_MS,
    full_at_ms: nowMs + grant.state.reset_s * 1000,
  };
}

/** Whether a request can spend a token of this slice now. */
export function canSpend(lease: Lease | undefined, nowMs: number): lease is Lease {
  return lease !== undefined && lease.tokens >= 1 && nowMs < lease.expires_at_ms;
}

export function spend(lease: Lease, tokens = 1): Lease {
  return { ...lease, tokens: lease.tokens - tokens };
}

/** A token reserved for a request that was refused by another bucket goes back to the slice (dropped if it expired meanwhile). */
export function giveBack(lease: Lease, nowMs: number): Lease {
  if (nowMs >= lease.expires_at_ms) return lease;
  return { ...lease, tokens: Math.min(sliceLimit(lease.limit), lease.tokens + 1) };
}

/**
 * The bucket as the RateLimit headers describe it after a request spent from this slice: the shared bucket's tokens
 * (refilled since the lease, as far as this replica knows) plus this replica's unspent ones, at most the burst.
 * With one replica and slices of one token this is exactly the shared bucket's state.
 */
export function stateOf(name: string, lease: Lease, nowMs: number): BucketState {
  const debtMs = Math.max(0, lease.full_at_ms - nowMs);
  const shared = Math.max(0, Math.floor(lease.limit - debtMs / lease.interval_ms + 1e-9));
  return { name, limit: lease.limit, remaining: Math.min(lease.limit, shared + lease.tokens), reset_s: debtMs / 1000, retry_s: 0 };
}
