import { createHash } from 'node:crypto';

/**
 * Idempotency-Key with Stripe's semantics, as pure rules: which keys are
 * acceptable, what makes two requests "the same", and what a request finds
 * when its key was seen before.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** How long a key is remembered after its first use; afterwards it is forgotten and starts afresh. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60_000;

/**
 * A claim still 'running' after this long belongs to a gateway that died mid-request, and may be taken
 * over. It must exceed the longest a live gateway holds one: RPC_TIMEOUT_MS (at most 120 s) plus the
 * platform allowance of agent writes (10 s) plus the wait for a late reply (LATE_REPLY_WAIT_MS).
 */
export const STALE_CLAIM_MS = 5 * 60_000;

/**
 * After answering 503 because a service did not reply in time, how long the gateway keeps listening for
 * that reply: a create that committed late is then stored as the key's answer, so the client's retry gets
 * the agent instead of running the create again.
 */
export const LATE_REPLY_WAIT_MS = 60_000;

/** The response headers a replay repeats: those that describe the created resource. */
export const REPLAYED_HEADERS = ['location', 'etag'] as const;

export const IDEMPOTENCY_KEY_FORMAT = `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID is a good choice).`;

export type ParsedIdempotencyKey = { kind: 'absent' } | { kind: 'key'; key: string } | { kind: 'malformed' };

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * The header as sent. Node joins repeated headers with ", ", which then simply is a (different) key.
 * Surrounding spaces are part of HTTP syntax, not of the value: Node strips them already.
 */
export function parseIdempotencyKey(header: string | undefined): ParsedIdempotencyKey {
  if (header === undefined) return { kind: 'absent' };
  if (header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH || !PRINTABLE_ASCII.test(header)) return { kind: 'malformed' };
  return { kind: 'key', key: header };
}

/** JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * What makes a retry "the same request": method, path (another path with the same key is a reuse, not a
 * retry) and the body compared as JSON (key order and spacing do not matter).
 */
export function requestFingerprint(request: { method: string; path: string; body: unknown }): string {
  return createHash('sha256').update(`${request.method.toUpperCase()} ${request.path}\n${canonicalJson(request.body)}`, 'utf8').digest('hex');
}

/** A key as stored: claimed by a running request, or done with its final answer. */
export interface StoredKey {
  fingerprint: string;
  state: 'running' | 'done';
  claimedAt: Date;
  expiresAt: Date;
}

/**
 * What a request finds under its key:
 * - `claim`: nothing (or only an expired key, forgotten first): it runs, holding the key;
 * - `replay`: the same request already finished: its answer is repeated, nothing runs;
 * - `reused`: the key belongs to a different request: 422;
 * - `in_use`: the same request is still running: 409, the client retries later;
 * - `take_over`: the same request's claim was left by a gateway that died: this one runs instead.
 */
export type IdempotencyVerdict = 'claim' | 'replay' | 'reused' | 'in_use' | 'take_over';

export function idempotencyVerdict(stored: StoredKey | undefined, fingerprint: string, now: Date): IdempotencyVerdict {
  if (!stored || stored.expiresAt.getTime() <= now.getTime()) return 'claim';
  if (stored.fingerprint !== fingerprint) return 'reused';
  if (stored.state === 'done') return 'replay';
  return now.getTime() - stored.claimedAt.getTime() > STALE_CLAIM_MS ? 'take_over' : 'in_use';
}

/**
 * Whether an answer is final and kept for replays. 2xx and 4xx describe the request and are repeated;
 * a 5xx (an outage, a bug of ours) says nothing about it, so the key is released and a retry runs again.
 */
export function isFinalAnswer(status: number): boolean {
  return status >= 200 && status < 500;
}

/** The replayable subset of a response's headers, under their canonical names. */
export function replayedHeaders(headers: Record<string, unknown>): Record<string, string> {
  const names: Record<(typeof REPLAYED_HEADERS)[number], string> = { location: 'Location', etag: 'ETag' };
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase() as (typeof REPLAYED_HEADERS)[number];
    if (REPLAYED_HEADERS.includes(lower) && (typeof value === 'string' || typeof value === 'number')) kept[names[lower]] = String(value);
  }
  return kept;
}
