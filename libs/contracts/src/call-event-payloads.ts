/**
 * Validation classes for the call-event contract (call-events.ts), shared by the
 * HTTP ingest (gateway) and the JetStream consumer (conversations-service), so
 * both paths accept exactly the same events. call-event.schema.json is the
 * JSON Schema twin for publishers in other languages; a unit test keeps the two
 * in agreement.
 */
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsNumber, IsObject, IsString,
  Matches, Max, Min, ValidateBy, ValidateIf, ValidateNested, buildMessage, type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import {
  ABANDONMENT_REASONS, CALL_EVENT_TYPES, CONVERSATION_ID_PATTERN, COST_CURRENCIES, SENTIMENTS, SPEAKERS, TRANSCRIPT_ANCHORS,
  type CallEventType,
} from './call-events.js';
import type { ServiceError } from './errors.js';
import { CharLength, findProblem } from './validation.js';

/** Patterns shared with call-event.schema.json (kept identical on purpose). */
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

// ---- small decorator vocabulary, so every rule reads the same way ----

/** Optional, but `null` is not a value: a present key must hold a valid value. */
const Optional = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);
const Required = () => IsDefined({ message: '$property is required.' });

function Timestamp(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCallEventTimestamp',
      validator: {
        validate: (value: unknown) => isCallEventTimestamp(value),
        defaultMessage: buildMessage(
          (each) => `${each}$property must be an ISO 8601 timestamp with a time zone in the years 0001 to 9999, e.g. 2025-01-31T14:05:00Z.`,
          options,
        ),
      },
    },
    options,
  );
}

const UNSTORABLE_MESSAGE = 'contains a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate).';

/** No U+0000 and no unpaired surrogate in a string (or in each string of an array). Other types are left to other rules. */
function Storable(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStorableText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || isStorableText(value),
        defaultMessage: buildMessage((each) => `${each}$property ${UNSTORABLE_MESSAGE}`, options),
      },
    },
    options,
  );
}

/** No U+0000 and no unpaired surrogate anywhere in a free-form JSON value, keys included. */
function StorableJson(): PropertyDecorator {
  return ValidateBy({
    name: 'isStorableJson',
    validator: {
      validate: (value: unknown) => isStorableJson(value),
      defaultMessage: () => '$property contains a key or a string with a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate).',
    },
  });
}

function OneOf(values: readonly string[]): PropertyDecorator {
  return IsIn(values, { message: `$property must be one of: ${values.join(', ')}.`, context: { valid_values: values } });
}

function Text(min: number, max: number): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsString({ message: '$property must be a string.' })(target, key);
    CharLength(min, max, { message: `$property must be ${min} to ${max} characters long.` })(target, key);
    Matches(CALL_EVENT_PATTERNS.nonBlank, { message: '$property must not be blank.' })(target, key);
    Storable()(target, key);
  };
}

function Count(max = MAX_INT32): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsInt({ message: '$property must be an integer.' })(target, key);
    Min(0, { message: '$property must not be negative.' })(target, key);
    Max(max, { message: `$property must be at most ${max}.` })(target, key);
  };
}

/** A finite number that is not negative: an amount in USD, or milliseconds of latency. */
function NonNegative(): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a finite number.' })(target, key);
    Min(0, { message: '$property must not be negative.' })(target, key);
  };
}

function TextList(maxItems: number, maxLength: number): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsArray({ message: '$property must be an array of strings.' })(target, key);
    ArrayMaxSize(maxItems, { message: `$property must hold at most ${maxItems} items.` })(target, key);
    IsString({ each: true, message: '$property must contain only strings.' })(target, key);
    CharLength(1, maxLength, { each: true, message: `each item of $property must be 1 to ${maxLength} characters long.` })(target, key);
    Storable({ each: true })(target, key);
  };
}

function Nested(cls: () => new () => object, options: { array?: { min: number; max: number } } = {}): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    if (options.array) {
      IsArray({ message: '$property must be an array.' })(target, key);
      ArrayMinSize(options.array.min, { message: `$property must hold at least ${options.array.min} item(s).` })(target, key);
      ArrayMaxSize(options.array.max, { message: `$property must hold at most ${options.array.max} items.` })(target, key);
      // ValidateNested would descend into an item that is itself an array (and accept an empty one).
      IsObject({ each: true, message: 'each item of $property must be an object.' })(target, key);
    } else {
      IsObject({ message: '$property must be an object.' })(target, key);
    }
    ValidateNested({ each: Boolean(options.array) })(target, key);
    // A Transform instead of @Type: @Type needs reflect-metadata, which contracts must not depend on.
    Transform(({ value }) => toInstances(cls(), value))(target, key as string);
  };
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toInstances(cls: new () => object, value: unknown): unknown {
  const one = (v: unknown) => (isPlainObject(v) ? plainToInstance(cls, v, { enableImplicitConversion: false }) : v);
  return Array.isArray(value) ? value.map(one) : one(value);
}

function NotBefore(otherProperty: string): PropertyDecorator {
  return ValidateBy({
    name: 'notBefore',
    constraints: [otherProperty],
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const other = (args?.object as Record<string, unknown>)[otherProperty];
        return typeof value !== 'number' || typeof other !== 'number' || value >= other;
      },
      defaultMessage: () => `$property must not be less than ${otherProperty}.`,
    },
  });
}

// ---- nested parts ----

export class TranscriptSegmentPayload {
  @Required() @OneOf(SPEAKERS) speaker: string;
  @Required() @Text(1, 10_000) text: string;
  @Required() @Count() start_ms: number;
  @Required() @Count() @NotBefore('start_ms') end_ms: number;
}

export class CallErrorPayload {
  @Required() @Text(1, 100) code: string;
  @Required() @Text(1, 1000) message: string;
  @Optional() @Timestamp() occurred_at?: string;
}

export class SatisfactionPayload {
  @Optional() @IsInt({ message: '$property must be an integer.' }) @Min(1) @Max(5) score?: number;
  @Optional() @TextList(20, 200) indicators?: string[];
}

export class FollowUpTaskPayload {
  @Required() @Text(1, 1000) description: string;
  @Optional() @Timestamp() due_at?: string;
  @Optional() @Text(1, 200) assignee?: string;
}

export class IntegrationRecordPayload {
  @Required() @Text(1, 100) system: string;
  @Required() @Text(1, 100) action: string;
  @Optional() @Text(1, 200) reference?: string;
  @Optional() @IsObject({ message: '$property must be an object.' }) @StorableJson() details?: Record<string, unknown>;
}

export class QualityMetricsPayload {
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(1) @Max(5) mos?: number;
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) jitter_ms?: number;
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(100) packet_loss_pct?: number;
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) latency_ms?: number;
}

export class NetworkInfoPayload {
  @Optional() @Text(1, 50) codec?: string;
  @Optional() @Text(1, 100) carrier?: string;
  @Optional() @Text(1, 100) region?: string;
}

export class CostComponentPayload {
  @Required() @Text(1, 50) component: string;
  @Required() @NonNegative() amount: number;
}

export class CallCostPayload {
  @Required() @NonNegative() amount: number;
  @Required() @OneOf(COST_CURRENCIES) currency: string;
  @Optional() @Nested(() => CostComponentPayload, { array: { min: 0, max: 20 } }) breakdown?: CostComponentPayload[];
}

export class LatencyFiguresPayload {
  @Required() @Text(1, 50) component: string;
  @Optional() @NonNegative() p50_ms?: number;
  @Optional() @NonNegative() p90_ms?: number;
  @Optional() @NonNegative() p99_ms?: number;
  @Optional() @NonNegative() average_ms?: number;
}

/** What any end of a call (ended, failed, abandoned) may carry from its platform. */
abstract class CallEndDetailsPayload {
  @Optional() @Matches(CALL_EVENT_PATTERNS.e164, { message: '$property must be an E.164 phone number, e.g. +14155550123.' }) caller_number?: string;
  @Optional() @Timestamp() start_time?: string;
  @Optional() @Text(1, 200) platform_call_id?: string;
  @Optional() @Text(1, 200) end_reason?: string;
  @Optional() @Nested(() => CallCostPayload) cost?: CallCostPayload;
  @Optional() @Nested(() => LatencyFiguresPayload, { array: { min: 0, max: 20 } }) latency?: LatencyFiguresPayload[];
  @Optional() @CharLength(1, 2048) @Matches(CALL_EVENT_PATTERNS.httpUrl, { message: '$property must be an http(s) URL.' }) @Storable() recording_url?: string;
  @Optional() @Text(1, 10_000) summary?: string;
  @Optional() @OneOf(SENTIMENTS) sentiment?: string;
  @Optional() @TextList(50, 100) topics?: string[];
}

// ---- data of each event type ----

export class CallStartedDataPayload {
  // Absent when the caller withheld the number.
  @Optional() @Matches(CALL_EVENT_PATTERNS.e164, { message: '$property must be an E.164 phone number, e.g. +14155550123.' }) caller_number?: string;
  @Required() @Timestamp() start_time: string;
  @Optional() @Text(1, 200) platform_call_id?: string;
}

export class CallProgressDataPayload {
  @Optional() @Count() duration?: number;
  @Optional() @OneOf(SENTIMENTS) sentiment?: string;
  @Optional() @TextList(50, 100) topics?: string[];
}

export class CallTranscriptDataPayload {
  @Required() @Nested(() => TranscriptSegmentPayload, { array: { min: 1, max: 5000 } }) segments: TranscriptSegmentPayload[];
  @Optional() @IsBoolean({ message: '$property must be true or false.' }) provisional?: boolean;
  @Optional() @OneOf(TRANSCRIPT_ANCHORS) anchor?: string;
}

export class CallEndedDataPayload extends CallEndDetailsPayload {
  @Required() @Timestamp() end_time: string;
  @Optional() @Count() duration?: number;
  @Optional() @CharLength(1, 64) @Matches(CALL_EVENT_PATTERNS.snakeCase, { message: '$property must be a snake_case label, e.g. appointment_booked.' }) outcome?: string;
  @Optional() @Matches(CALL_EVENT_PATTERNS.language, { message: '$property must be an ISO 639-1 code, e.g. en.' }) language?: string;
  @Optional() @Text(1, 100) intent?: string;
  @Optional() @Nested(() => SatisfactionPayload) satisfaction?: SatisfactionPayload;
  @Optional() @TextList(100, 100) keywords?: string[];
  @Optional() @TextList(50, 500) actions_taken?: string[];
  @Optional() @Nested(() => FollowUpTaskPayload, { array: { min: 0, max: 50 } }) follow_up_tasks?: FollowUpTaskPayload[];
  @Optional() @Nested(() => IntegrationRecordPayload, { array: { min: 0, max: 50 } }) integrations?: IntegrationRecordPayload[];
  @Optional() @Nested(() => QualityMetricsPayload) quality?: QualityMetricsPayload;
  @Optional() @Nested(() => NetworkInfoPayload) network?: NetworkInfoPayload;
  @Optional() @Nested(() => CallErrorPayload, { array: { min: 0, max: 50 } }) errors?: CallErrorPayload[];
}

export class CallFailedDataPayload extends CallEndDetailsPayload {
  @Required() @Text(1, 500) failure_reason: string;
  @Optional() @Timestamp() end_time?: string;
  @Optional() @Count() duration?: number;
  @Optional() @Nested(() => CallErrorPayload) error?: CallErrorPayload;
}

export class CallAbandonedDataPayload extends CallEndDetailsPayload {
  @Required() @OneOf(ABANDONMENT_REASONS) reason: string;
  @Optional() @Timestamp() end_time?: string;
}

export const CALL_EVENT_DATA_CLASSES: Record<CallEventType, new () => object> = {
  'call.started': CallStartedDataPayload,
  'call.progress': CallProgressDataPayload,
  'call.transcript': CallTranscriptDataPayload,
  'call.ended': CallEndedDataPayload,
  'call.failed': CallFailedDataPayload,
  'call.abandoned': CallAbandonedDataPayload,
};

/** The envelope every call event shares; `data` is checked against its type's class afterwards. */
export class CallEventEnvelopePayload {
  @Required() @Text(1, 128) @Matches(CALL_EVENT_PATTERNS.noControl, { message: '$property must not contain control characters (U+0000 to U+001F, U+007F to U+009F).' }) id: string;
  @Required() @OneOf(CALL_EVENT_TYPES) type: string;
  @Required() @IsString({ message: '$property must be a string.' }) @Matches(CONVERSATION_ID_PATTERN, { message: '$property must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-".' }) conversation_id: string;
  @Required() @Text(1, 128) agent_id: string;
  @Required() @Timestamp() occurred_at: string;
  @Required() @IsObject({ message: '$property must be an object.' }) data: Record<string, unknown>;
}

/**
 * The first problem of an untrusted call event, or undefined when it is valid.
 * `pathPrefix` (e.g. `events[3]`) is put in front of every field path, so a
 * batch error names `events[3].data.caller_number`.
 */
export function findCallEventProblem(value: unknown, pathPrefix = ''): ServiceError | undefined {
  const envelopeProblem = findProblem(CallEventEnvelopePayload, value, { pathPrefix });
  if (envelopeProblem) return envelopeProblem;
  const event = value as { type: CallEventType; data: unknown };
  const dataPath = pathPrefix ? `${pathPrefix}.data` : 'data';
  return findProblem(CALL_EVENT_DATA_CLASSES[event.type], event.data, { pathPrefix: dataPath });
}
