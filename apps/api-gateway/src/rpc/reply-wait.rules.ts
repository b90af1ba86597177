/**
 * How long the gateway waits for a service's answer. A plain request has one
 * bound (RPC_TIMEOUT_MS). A request whose handler reports progress (a platform
 * sync, up to 10 s) is waited for while the progress signals keep coming, so a
 * slow but alive service gets its full allowance while a dead one shows as 503
 * about PROGRESS_SILENCE_MS after its last signal — never beyond the absolute bound.
 */

/**
 * Silence after a progress signal that means the service is gone. Services signal every second
 * (PROGRESS_INTERVAL_MS); twice that tolerates one late or lost signal and an event-loop hiccup.
 */
export const PROGRESS_SILENCE_MS = 2_000;

export interface ReplyWait {
  /** Until the first progress signal (or the answer): the time a service gets to take the request up. */
  firstSignalMs: number;
  /** After a progress signal, how long without another one before giving up; absent: signals are ignored. */
  silenceMs?: number;
  /** Never wait longer than this in all, however many signals came. */
  maxMs: number;
}

/** One bound, progress signals or not. */
export function fixedWait(timeoutMs: number): ReplyWait {
  return { firstSignalMs: timeoutMs, maxMs: timeoutMs };
}

/** A request whose handler reports progress: the usual bound to take it up, then alive while it signals, up to `maxMs`. */
export function progressWait(rpcTimeoutMs: number, maxMs: number, silenceMs = PROGRESS_SILENCE_MS): ReplyWait {
  return { firstSignalMs: rpcTimeoutMs, silenceMs, maxMs };
}

/** The instant (ms, same clock as the arguments) at which the wait ends without an answer. */
export function replyDeadline(wait: ReplyWait, startedAt: number, lastSignalAt?: number): number {
  const cap = startedAt + wait.maxMs;
  if (wait.silenceMs === undefined || lastSignalAt === undefined) return Math.min(startedAt + wait.firstSignalMs, cap);
  return Math.min(lastSignalAt + wait.silenceMs, cap);
}

/**
 * After the wait ended (503 answered), how long a reply is still listened for (its answer then settles an
 * Idempotency-Key): up to `lateWaitMs`, but for a reporting request no longer than its signals last — a
 * service that went silent is gone, and holding the key for it would only turn the client's retries into 409s.
 */
export function lateReplyDeadline(wait: ReplyWait, lateStartedAt: number, lateWaitMs: number, lastSignalAt?: number): number {
  const cap = lateStartedAt + lateWaitMs;
  if (wait.silenceMs === undefined || lastSignalAt === undefined) return cap;
  return Math.min(lastSignalAt + wait.silenceMs, cap);
}

/** Why a wait ended without an answer: the service never answered, or it stopped signalling. */
export function expiryReason(wait: ReplyWait, startedAt: number, lastSignalAt?: number): 'no_answer' | 'went_silent' {
  if (wait.silenceMs === undefined || lastSignalAt === undefined) return 'no_answer';
  return lastSignalAt + wait.silenceMs < startedAt + wait.maxMs ? 'went_silent' : 'no_answer';
}
