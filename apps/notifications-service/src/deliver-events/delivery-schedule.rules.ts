/** What an attempt's outcome means for its delivery: success, another attempt (when), or failed for good. Pure. */

/** Immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 28 h in all (WEBHOOK_RETRY_SCHEDULE_MS). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** A 2xx within the deadline is the only success. */
export const DELIVERY_TIMEOUT_MS = 15_000;

/** Spread of the jitter around each delay (±10 %), so endpoints that failed together are not retried in a burst. */
const JITTER = 0.1;
/** The longest a Retry-After may postpone an attempt: the schedule's longest step. */
const MAX_RETRY_AFTER_MS = 36_000_000;

export interface AttemptOutcome {
  /** The HTTP status, when an answer came. */
  statusCode?: number;
  /** Why no answer counts: timeout, refused address, network, redirect… */
  error?: string;
  /** The receiver's Retry-After (429 or 503), in ms from now. */
  retryAfterMs?: number;
}

export type DeliveryDecision =
  | { status: 'succeeded' }
  | { status: 'pending'; delayMs: number }
  | { status: 'failed' };

export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
}

/**
 * After attempt number `attempts` (1 = the first): the schedule's entry at that index is the wait before the
 * next attempt; past its end the delivery has failed. `random` in [0, 1) draws the jitter.
 */
export function afterAttempt(attempts: number, outcome: AttemptOutcome, schedule: readonly number[], random: number): DeliveryDecision {
  if (isSuccess(outcome)) return { status: 'succeeded' };
  if (attempts >= schedule.length) return { status: 'failed' };
  const planned = schedule[attempts];
  const jittered = Math.round(planned * (1 + JITTER * (2 * random - 1)));
  const honoured = outcome.retryAfterMs !== undefined && (outcome.statusCode === 429 || outcome.statusCode === 503)
    ? Math.max(jittered, Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS))
    : jittered;
  return { status: 'pending', delayMs: honoured };
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** WEBHOOK_RETRY_SCHEDULE_MS: comma-separated delays in ms, the first before the first attempt; or the problem. */
export function parseRetrySchedule(text: string): readonly number[] | string {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 50 || parts.some((part) => !/^\d{1,10}$/.test(part))) {
    return 'must be 1 to 50 comma-separated delays in milliseconds, e.g. 0,1000,2000';
  }
  return parts.map(Number);
}

/** The first 1 KiB of a response body, as stored beside its attempt. */
export function storedBody(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= 1024 ? text : bytes.subarray(0, 1024).toString('utf8').replace(/\uFFFD$/, '');
}

/** An endpoint whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_FOR_MS = 5 * 24 * 60 * 60 * 1000;
/** …or after this many failed deliveries in a row (WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES). */
export const DEFAULT_DISABLE_AFTER_FAILED_DELIVERIES = 1_000;

export interface FailureStreak {
  /** Deliveries failed in a row since the last success, this one included. */
  failedInARow: number;
  /** When the first of them failed. */
  failingSince: Date;
}

/** Why an endpoint must be disabled now, or undefined. */
export function disableReason(streak: FailureStreak, now: Date, maxFailedInARow: number): string | undefined {
  if (streak.failedInARow >= maxFailedInARow) return `${streak.failedInARow} deliveries failed in a row`;
  if (now.getTime() - streak.failingSince.getTime() >= DISABLE_AFTER_FAILING_FOR_MS) return 'every delivery failed for 5 days';
  return undefined;
}
