/**
 * Reading untrusted webhook bodies and turning their values into ones the call-event contract accepts.
 * Two kinds of reader: `strict*` ones throw MalformedBody (the mapping answers `malformed`, naming the
 * path) when a field is present with the wrong type, for the fields an event is made of (ids, times,
 * reasons, the transcript); `soft*` ones return undefined instead, for enrichments (cost, latency,
 * analysis, caller number, recording URL) that must never cost us the call's end.
 */
import { createHash } from 'node:crypto';
import { CONVERSATION_ID_PATTERN, type Sentiment } from '@voice/contracts';
import { CALL_EVENT_PATTERNS, MAX_INT32, isCallEventTimestamp, timestampEpochNanos } from '@voice/contracts';
import { charCount, isPlainObject } from '@voice/contracts';
import type { WebhookPlatform } from './types.js';

export type Json = Record<string, unknown>;

/** The body is not the platform's shape; the message names the path. */
export class MalformedBody extends Error {}

export function malformed(message: string): never {
  throw new MalformedBody(message);
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A required object; missing or of another type → malformed. */
export function strictObject(parent: Json, key: string, path: string): Json {
  const value = parent[key];
  if (value === undefined) return malformed(`${path} is missing`);
  if (!isPlainObject(value)) return malformed(`${path} must be an object, not ${typeName(value)}`);
  return value;
}

/** An optional object: undefined when absent, malformed when of another type. */
export function strictOptObject(parent: Json, key: string, path: string): Json | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) return malformed(`${path} must be an object, not ${typeName(value)}`);
  return value;
}

/** A required, non-empty string (an id). */
export function strictId(parent: Json, key: string, path: string): string {
  const value = parent[key];
  if (value === undefined || value === null) return malformed(`${path} is missing`);
  if (typeof value !== 'string') return malformed(`${path} must be a string, not ${typeName(value)}`);
  if (value.trim() === '') return malformed(`${path} is empty`);
  // No platform writes U+0000 or a lone surrogate in an id, and nothing downstream could store one.
  if (!CALL_EVENT_PATTERNS.storableText.test(value)) return malformed(`${path} contains a character that cannot be stored`);
  return value;
}

export function strictOptString(parent: Json, key: string, path: string): string | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return malformed(`${path} must be a string, not ${typeName(value)}`);
  return value;
}

export function strictOptArray(parent: Json, key: string, path: string): unknown[] | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return malformed(`${path} must be an array, not ${typeName(value)}`);
  return value;
}

export function strictOptNumber(parent: Json, key: string, path: string): number | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return malformed(`${path} must be a finite number, not ${typeName(value)}`);
  return value;
}

/** Earliest and latest instants the contract's timestamps can name (years 0001–9999, UTC). */
const FIRST_MS = -62_135_596_800_000;
const LAST_MS = 253_402_300_799_999;

/** Unix milliseconds (rounded to a whole millisecond) in the years 0001–9999. */
export function strictOptUnixMs(parent: Json, key: string, path: string): number | undefined {
  const value = strictOptNumber(parent, key, path);
  if (value === undefined) return undefined;
  const ms = Math.round(value);
  if (ms < FIRST_MS || ms > LAST_MS) return malformed(`${path} is not a Unix time in milliseconds`);
  return ms;
}

/** An ISO 8601 timestamp with a time zone, as Unix milliseconds (below a millisecond is dropped). */
export function strictOptIsoMs(parent: Json, key: string, path: string): number | undefined {
  const value = strictOptString(parent, key, path);
  if (value === undefined) return undefined;
  if (!isCallEventTimestamp(value)) return malformed(`${path} must be an ISO 8601 timestamp with a time zone`);
  const nanos = timestampEpochNanos(value);
  const ms = Number(nanos / 1_000_000n) - (nanos < 0n && nanos % 1_000_000n !== 0n ? 1 : 0);
  return Math.min(Math.max(ms, FIRST_MS), LAST_MS);
}

/** Unix milliseconds as the contract's timestamp; clamped into the years the contract allows. */
export function isoFromMs(ms: number): string {
  return new Date(Math.min(Math.max(Math.round(ms), FIRST_MS), LAST_MS)).toISOString();
}

export function softNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function softObject(value: unknown): Json | undefined {
  return isPlainObject(value) ? value : undefined;
}

/** A count of milliseconds as the contract's integer (clamped to 0..MAX_INT32). */
export function clampMs(ms: number): number {
  return Math.min(Math.max(Math.round(ms), 0), MAX_INT32);
}

// ---- text ----

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces what no store behind the contract can hold (U+0000, unpaired surrogates) with U+FFFD. */
export function storable(text: string): string {
  return text.replace(/\u0000/g, '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

/** The first `max` code points. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === max) break;
    out += ch;
    count += 1;
  }
  return out;
}

/** Free text for a field of `max` characters: storable, cut at the limit (never for ids), undefined when blank. */
export function boundedText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || !CALL_EVENT_PATTERNS.nonBlank.test(value)) return undefined;
  const text = cutChars(storable(value), max);
  return CALL_EVENT_PATTERNS.nonBlank.test(text) ? text : undefined;
}

/** Shows an untrusted value in a reason: JSON-quoted (control characters escaped), at most 100 characters. */
export function quote(value: string): string {
  return JSON.stringify(cutChars(value, 100));
}

export function e164(value: unknown): string | undefined {
  return typeof value === 'string' && CALL_EVENT_PATTERNS.e164.test(value) ? value : undefined;
}

export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || charCount(value) > 2048) return undefined;
  return CALL_EVENT_PATTERNS.httpUrl.test(value) && CALL_EVENT_PATTERNS.storableText.test(value) ? value : undefined;
}

/** A label as the contract's snake_case outcome (≤ 64): `Appointment Booked` → `appointment_booked`; undefined when impossible. */
export function snakeLabel(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const label = value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+/, '')
    .slice(0, 64)
    .replace(/_+$/, '');
  return label !== '' && CALL_EVENT_PATTERNS.snakeCase.test(label) ? label : undefined;
}

/** Topics the contract accepts: strings, trimmed, 1..100 characters, no repeats (case-insensitive), at most 50. */
export function topicList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const seen = new Set<string>();
  const topics: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const topic = item.trim();
    if (topic === '' || charCount(topic) > 100 || !CALL_EVENT_PATTERNS.storableText.test(topic)) continue;
    const key = topic.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    topics.push(topic);
    if (topics.length === 50) break;
  }
  return topics.length > 0 ? topics : undefined;
}

export function sentimentOf(value: unknown): Sentiment | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return word === 'positive' || word === 'neutral' || word === 'negative' ? word : undefined;
}

/** A yes/no verdict given as a boolean or as the strings "true"/"false". */
export function verdict(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return word === 'true' ? true : word === 'false' ? false : undefined;
}

/** An amount of money or a latency: a finite number ≥ 0, without floating-point noise (8 decimals). */
export function nonNegative(value: unknown, divisor = 1): number | undefined {
  const n = softNumber(value);
  if (n === undefined || n < 0) return undefined;
  return Number((n / divisor).toFixed(8));
}

// ---- ids ----

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Short content hash used in event ids to tell repeats apart. */
export function shortHash(text: string, length = 16): string {
  return sha256Hex(text).slice(0, length);
}

/** The conversation of a platform call: its own id when the contract accepts it, else a hash of platform and id. */
export function conversationIdFor(platform: WebhookPlatform, platformCallId: string): string {
  return CONVERSATION_ID_PATTERN.test(platformCallId) ? platformCallId : `call-${sha256Hex(platform + platformCallId).slice(0, 40)}`;
}

/** Call ids this long or shorter, and without ':', are written as they are in event ids. */
const SHORT_CALL_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * `<tag>:<call>` — the first part of every event id of the call (`tag` is the platform's: `pa`, `pb`): the call id itself when it is short
 * and plain, else `call-` and a hash (the same hash as the conversation id's), so ids stay ≤ 128 characters.
 */
export function eventIdPrefix(platform: WebhookPlatform, tag: string, platformCallId: string): string {
  const call = SHORT_CALL_ID.test(platformCallId) ? platformCallId : `call-${sha256Hex(platform + platformCallId).slice(0, 40)}`;
  return `${tag}:${call}`;
}

/** The platform's call id as the contract's platform_call_id (1..200 characters), when it fits. */
export function platformCallIdField(platformCallId: string): { platform_call_id?: string } {
  const ok = charCount(platformCallId) <= 200 && CALL_EVENT_PATTERNS.nonBlank.test(platformCallId) && CALL_EVENT_PATTERNS.storableText.test(platformCallId);
  return ok ? { platform_call_id: platformCallId } : {};
}
