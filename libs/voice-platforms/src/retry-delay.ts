/**
 * How long the sync process waits before calling a platform again after a
 * transient failure. Exponential backoff with full jitter (a random delay
 * between 0 and the exponential bound), so that many agents failing together
 * do not retry together; a Retry-After the platform gave is a floor.
 */
export interface RetryPolicy {
  /** Bound of the first retry's delay. */
  baseMs: number;
  /** No computed delay exceeds this. */
  capMs: number;
  /** A platform's Retry-After is honoured up to this, so a hostile or broken answer cannot park work for days. */
  maxRetryAfterMs: number;
}

export const PLATFORM_RETRY_POLICY: RetryPolicy = { baseMs: 500, capMs: 60_000, maxRetryAfterMs: 15 * 60_000 };

/**
 * Delay before retry number `attempt` (0 for the first retry). `random` returns
 * [0, 1) and is replaceable for tests.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs?: number,
  policy: RetryPolicy = PLATFORM_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 52);
  const bound = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const jittered = Math.floor(random() * bound);
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}
