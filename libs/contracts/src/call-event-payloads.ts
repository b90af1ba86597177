/**
 * The call-event contract as one definition, the TypeBox schema of call-event.schema.ts (JSON Schema, also
 * published in the OpenAPI document for publishers in other languages), shared by the HTTP ingest (gateway) and
 * the JetStream consumer (conversations-service), so every path accepts exactly the same events. The schema is
 * compiled once with Ajv; a refused event is explained by walking the same schema (call-event-problems.ts).
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CallEventProblems, type SchemaNode } from './call-event-problems.js';
import { CALL_EVENT_SCHEMA_JSON } from './call-event.schema.js';
import type { CallEventType } from './call-events.js';
import type { ServiceError } from './errors.js';
import { isPlainObject } from './plain-object.js';
import { findReservedKey } from './validation.js';
/** Patterns shared with the call-event schema (call-event.schema.ts; kept identical on purpose). */
export const CALL_EVENT_PATTERNS = {
  e164: /^\+[1-9][0-9]{1,14}$/,
  /**
   * RFC 3339 / ISO 8601 date-time with seconds and an explicit offset, year 0001–9999
   * (PostgreSQL has no year 0000), no leap second (23:59:60), offsets up to ±23:59;
   * the calendar (days of the month) and the range of the instant are checked separately.
   */
  timestamp: /^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/,
  /**
   * Dates at the very edges of years 0001–9999 whose offset carries the instant out of
   * that range in UTC (0001-01-01 ahead of UTC, 9999-12-31 behind it): refused whatever
   * the time of day, so that the JSON Schema (which cannot do arithmetic) says the same.
   * Also the last half microsecond of 9999, which PostgreSQL rounds into the year 10000.
   */
  outOfRangeEdge: /^0001-01-01T.*\+(0[1-9]|1[0-9]|2[0-3]|00:0[1-9]|00:[1-5][0-9])|^9999-12-31T.*-(0[1-9]|1[0-9]|2[0-3]|00:0[1-9]|00:[1-5][0-9])|^9999-12-31T23:59:59\.999999[5-9][0-9]*(Z|[+-]00:00)$/,
  /**
   * Text every store behind the contract can hold: no U+0000 (PostgreSQL text refuses it)
   * and no unpaired UTF-16 surrogate (jsonb refuses it, text would turn it into U+FFFD).
   * Needs the `u` flag: with it a well-formed pair is one code point, outside D800–DFFF.
   */
  storableText: /^[^\u0000\uD800-\uDFFF]*$/u,
  /**
   * An event id travels in a message header (Nats-Msg-Id), where CR or LF is refused by the
   * NATS client: the publish would fail every time and a retrying platform would loop. The
   * whole Unicode Cc category is refused, C1 (U+0080–U+009F) included: none has a place in an
   * identifier, an 8-bit terminal reads U+009B as an escape sequence in logs, and "control
   * character" then means the same as in other languages (Java isISOControl, Go IsControl).
   */
  noControl: /^[^\u0000-\u001F\u007F-\u009F]*$/,
  snakeCase: /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/,
  language: /^[a-z]{2}(-[A-Z]{2})?$/,
  httpUrl: /^https?:\/\/[^\s/?#]+[^\s]*$/,
  nonBlank: /\S/,
} as const;

/** Largest integer a duration or millisecond offset may carry (PostgreSQL integer). */
export const MAX_INT32 = 2_147_483_647;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True for an RFC 3339 timestamp that names a real instant (no 2024-02-30, no 25:00,
 * no leap second) that lies, as written and in UTC, in the years 0001–9999.
 */
export function isCallEventTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !CALL_EVENT_PATTERNS.timestamp.test(value)) return false;
  if (CALL_EVENT_PATTERNS.outOfRangeEdge.test(value)) return false;
  const [y, mo, d] = [Number(value.slice(0, 4)), Number(value.slice(5, 7)), Number(value.slice(8, 10))];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return mo >= 1 && mo <= 12 && d >= 1 && d <= (mo === 2 && !leap ? 28 : DAYS_IN_MONTH[mo - 1]);
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil); exact for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * The exact instant of a valid call-event timestamp, in nanoseconds since 1970-01-01T00:00:00Z.
 * Date.parse keeps only milliseconds, while the contract allows nine fractional digits:
 * compare these, never Date.parse results, when the order of two timestamps matters.
 */
export function timestampEpochNanos(timestamp: string): bigint {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(Z|([+-])([0-9]{2}):([0-9]{2}))$/.exec(timestamp);
  if (!m) throw new RangeError(`not an RFC 3339 timestamp: ${timestamp}`);
  const [, y, mo, d, h, mi, s, fraction = '', , sign, oh, om] = m;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const seconds = daysFromCivil(Number(y), Number(mo), Number(d)) * 86_400 + Number(h) * 3600 + Number(mi) * 60 + Number(s) - offsetMinutes * 60;
  return BigInt(seconds) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
}

/** True when every character of the text can be stored (see CALL_EVENT_PATTERNS.storableText). */
export function isStorableText(value: string): boolean {
  return CALL_EVENT_PATTERNS.storableText.test(value);
}

/** True when every string and every key in a JSON value can be stored. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => isStorableText(key) && isStorableJson(item));
  }
  return true;
}


// ---- the compiled definition ----

interface CallEventSchema extends SchemaNode {
  $defs: Record<string, SchemaNode>;
  allOf: { if: { properties: { type: { const: CallEventType } } }; then: { properties: { data: { $ref: string } } } }[];
}

/** The definition itself, as plain JSON Schema. */
export const CALL_EVENT_SCHEMA = CALL_EVENT_SCHEMA_JSON as CallEventSchema;

// ajv and ajv-formats are CommonJS: depending on the loader the class sits on the module or on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

// Ajv counts minLength/maxLength in code points, like charCount; only the verdict is used, so no messages.
const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false, messages: false });
addFormats(ajv, ['date-time']);
const validateCallEvent = ajv.compile(CALL_EVENT_SCHEMA);

/** The data definition of each event type, from the schema's `if type … then data …` branches. */
const DATA_DEFINITIONS = new Map<string, string>(
  CALL_EVENT_SCHEMA.allOf.map((branch) => [branch.if.properties.type.const, branch.then.properties.data.$ref.slice('#/$defs/'.length)]),
);

/** The one rule JSON Schema cannot state (documented on TranscriptSegment.end_ms): a segment does not end before it starts. */
function segmentEndsBeforeStart(segment: Record<string, unknown>, path: string): string | undefined {
  const { start_ms: start, end_ms: end } = segment;
  return typeof start === 'number' && typeof end === 'number' && end < start ? `${path} must not be less than start_ms.` : undefined;
}

/** For an event the compiled schema accepted: its transcript segments, if any, all end at or after their start. */
function segmentsInOrder(event: Record<string, unknown>): boolean {
  if (event.type !== 'call.transcript') return true;
  const { segments } = event.data as { segments: Record<string, unknown>[] };
  return segments.every((segment) => !segmentEndsBeforeStart(segment, 'end_ms'));
}

const problems = new CallEventProblems(
  CALL_EVENT_SCHEMA.$defs,
  { isTimestamp: isCallEventTimestamp, isStorableText, isStorableJson },
  { TranscriptSegment: { end_ms: segmentEndsBeforeStart } },
);

/**
 * The first problem of an untrusted call event, or undefined when it is valid.
 * `pathPrefix` (e.g. `events[3]`) is put in front of every field path, so a
 * batch error names `events[3].data.caller_number`.
 */
export function findCallEventProblem(value: unknown, pathPrefix = ''): ServiceError | undefined {
  if (!isPlainObject(value)) {
    return {
      code: 'invalid_request',
      message: `${pathPrefix ? `${pathPrefix} must` : 'The request body must'} be a JSON object.`,
      ...(pathPrefix ? { field: pathPrefix } : {}),
    };
  }
  // A reserved key is named only where the shape is otherwise right, so a value of the wrong type is named as such.
  if (validateCallEvent(value) && segmentsInOrder(value)) return findReservedKey(value, pathPrefix);
  return explainCallEventProblem(value, pathPrefix) ?? findReservedKey(value, pathPrefix) ?? schemaMismatch(pathPrefix);
}

/**
 * The first problem of a call event found by walking the schema, without the compiled validator: what
 * findCallEventProblem answers for a refused event. Exported so that tests can hold the walk to the same
 * verdict as the compiled schema.
 */
export function explainCallEventProblem(event: Record<string, unknown>, pathPrefix = ''): ServiceError | undefined {
  const envelope = problems.objectProblem(CALL_EVENT_SCHEMA, event, pathPrefix);
  if (envelope) return envelope;
  const dataPath = pathPrefix ? `${pathPrefix}.data` : 'data';
  const def = DATA_DEFINITIONS.get(event.type as string) ?? '';
  return problems.objectProblem(CALL_EVENT_SCHEMA.$defs[def], event.data as Record<string, unknown>, dataPath, def);
}

/** The compiled schema refused what the walk found nothing wrong with: name where the schema stopped. */
function schemaMismatch(pathPrefix: string): ServiceError {
  const [first] = validateCallEvent.errors ?? [];
  const pointer = (first?.instancePath ?? '').replace(/\/([^/]+)/g, (_, key: string) => (/^\d+$/.test(key) ? `[${key}]` : `.${key}`));
  const field = `${pathPrefix}${pointer}`.replace(/^\./, '');
  return { code: 'invalid_parameter', ...(field ? { field } : {}), message: `${field || 'The call event'} does not match the call-event schema.` };
}
