/**
 * The one error every platform adapter throws, and the status rules both
 * platforms share. What the caller does with each kind:
 * - invalid_credentials: the account's key is wrong or revoked; stop until it is replaced.
 * - base_url_refused: the account's platform URL is unusable as given (malformed,
 *   points at an internal address, or answers with a redirect); stop until it is fixed.
 * - rejected: the platform refused what we sent (message and, when known, our field name); retrying the same is pointless.
 * - number_in_use / number_unavailable: the import or purchase cannot happen as asked.
 * - not_found: the agent or number is gone on the platform.
 * - transient: 429, 5xx, timeouts, network trouble; retry later (after retryAfterMs when the platform said so).
 */
import type { VoicePlatform } from '@voice/contracts';

export type PlatformFailureKind =
  | 'invalid_credentials'
  | 'base_url_refused'
  | 'rejected'
  | 'number_in_use'
  | 'number_unavailable'
  | 'not_found'
  | 'transient';

export interface PlatformFailure {
  kind: PlatformFailureKind;
  message: string;
  /** Our field (voice_id, name, system_prompt, …) the platform objected to, when it said. */
  field?: string;
  /** The platform's HTTP status, when it answered. */
  status?: number;
  /** From Retry-After on a 429 (or 503). */
  retryAfterMs?: number;
}

export class PlatformCallFailed extends Error implements PlatformFailure {
  override readonly name = 'PlatformCallFailed';
  readonly kind: PlatformFailureKind;
  readonly field?: string;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(readonly platform: VoicePlatform, failure: PlatformFailure) {
    super(`${platform}: ${failure.message}`);
    this.kind = failure.kind;
    if (failure.field !== undefined) this.field = failure.field;
    if (failure.status !== undefined) this.status = failure.status;
    if (failure.retryAfterMs !== undefined) this.retryAfterMs = failure.retryAfterMs;
  }

  get retryable(): boolean {
    return this.kind === 'transient';
  }
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110).
 * Unparseable or absent → undefined; a date in the past → 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and month; without letters Date.parse would read "-1" as a year.
  const date = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface PlatformErrorAnswer {
  status: number;
  /** The platform's own explanation, already extracted from its error body. */
  message: string;
  field?: string;
  retryAfterHeader?: string | string[];
}

/**
 * The kinds both platforms share, by status. Callers first handle what a status
 * means for their own operation (404 on delete, 409/422/400 on numbers).
 */
export function failureForStatus(answer: PlatformErrorAnswer, now: number = Date.now()): PlatformFailure {
  const { status, message } = answer;
  const said = message ? `: ${message}` : '';
  if (status === 401) return { kind: 'invalid_credentials', status, message: `the API key was refused (401)${said}` };
  if (status === 404) return { kind: 'not_found', status, message: `not found (404)${said}` };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(answer.retryAfterHeader, now) : undefined;
    return { kind: 'transient', status, message: `the platform answered ${status}${said}`, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  }
  // 403 included: a key without the right scope needs a person, like any other refusal.
  return { kind: 'rejected', status, message: message || `the platform answered ${status}`, ...(answer.field !== undefined && { field: answer.field }) };
}

/**
 * Platforms answer "no number available" and "number already registered" with
 * the same status as any validation error (platform_b: 400 for all three;
 * platform_a: 422 for both unavailable and invalid fields), so the text decides.
 */
export function saysNoNumberAvailable(message: string): boolean {
  return /\bno\b.*\bavailable\b|\bunavailable\b|\bnot available\b/i.test(message);
}

export function saysNumberAlreadyRegistered(message: string): boolean {
  return /\balready\b|\bin use\b/i.test(message);
}

/**
 * Finds our field name in a platform's error text: the earliest platform field
 * path mentioned wins. `paths` maps platform paths (longest first where one
 * is a prefix of another) to our fields.
 */
export function fieldMentioned(message: string, paths: ReadonlyArray<readonly [string, string]>): string | undefined {
  let best: { index: number; field: string } | undefined;
  for (const [path, field] of paths) {
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`(?<![\\w.])${escaped}(?![\\w])`).exec(message);
    if (match && (!best || match.index < best.index)) best = { index: match.index, field };
  }
  return best?.field;
}
