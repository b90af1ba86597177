/**
 * Validation classes for the call-event contract (call-events.ts), shared by the
 * HTTP ingest (gateway) and the JetStream consumer (conversations-service), so
 * both paths accept exactly the same events. call-event.schema.json is the
 * JSON Schema twin for publishers in other languages; a unit test keeps the two
 * in agreement.
 */
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsInt, IsNumber, IsObject, IsString,
  Length, Matches, Max, Min, ValidateBy, ValidateIf, ValidateNested, buildMessage, type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import {
  ABANDONMENT_REASONS, CALL_EVENT_TYPES, CONVERSATION_ID_PATTERN, SENTIMENTS, SPEAKERS, type CallEventType,
} from './call-events.js';
import type { ServiceError } from './errors.js';
import { findProblem } from './validation.js';

/** Patterns shared with call-event.schema.json (kept identical on purpose). */
export const CALL_EVENT_PATTERNS = {
  e164: /^\+[1-9][0-9]{1,14}$/,
  /** RFC 3339 / ISO 8601 date-time with seconds and an explicit offset; the calendar is checked separately. */
  timestamp: /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$/,
  snakeCase: /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/,
  language: /^[a-z]{2}(-[A-Z]{2})?$/,
  httpUrl: /^https?:\/\/[^\s/?#]+[^\s]*$/,
  nonBlank: /\S/,
} as const;

/** Largest integer a duration or millisecond offset may carry (PostgreSQL integer). */
export const MAX_INT32 = 2_147_483_647;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True for an RFC 3339 timestamp that names a real instant (no 2024-02-30, no 25:00). */
export function isCallEventTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !CALL_EVENT_PATTERNS.timestamp.test(value)) return false;
  const [y, mo, d, h, mi, s] = [0, 5, 8, 11, 14, 17].map((at, i) => Number(value.slice(at, at + (i === 0 ? 4 : 2))));
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && !leap ? 28 : DAYS_IN_MONTH[mo - 1])) return false;
  if (h > 23 || mi > 59 || s > 59) return false;
  const offset = value.match(/([+-])([0-9]{2}):([0-9]{2})$/);
  if (offset && (Number(offset[2]) > 23 || Number(offset[3]) > 59)) return false;
  return !Number.isNaN(Date.parse(value));
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
          (each) => `${each}$property must be an ISO 8601 timestamp with a time zone, e.g. 2025-01-31T14:05:00Z.`,
          options,
        ),
      },
    },
    options,
  );
}

function OneOf(values: readonly string[]): PropertyDecorator {
  return IsIn(values, { message: `$property must be one of: ${values.join(', ')}.`, context: { valid_values: values } });
}

function Text(min: number, max: number): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsString({ message: '$property must be a string.' })(target, key);
    Length(min, max, { message: `$property must be ${min} to ${max} characters long.` })(target, key);
    Matches(CALL_EVENT_PATTERNS.nonBlank, { message: '$property must not be blank.' })(target, key);
  };
}

function Count(max = MAX_INT32): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsInt({ message: '$property must be an integer.' })(target, key);
    Min(0, { message: '$property must not be negative.' })(target, key);
    Max(max, { message: `$property must be at most ${max}.` })(target, key);
  };
}

function TextList(maxItems: number, maxLength: number): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    IsArray({ message: '$property must be an array of strings.' })(target, key);
    ArrayMaxSize(maxItems, { message: `$property must hold at most ${maxItems} items.` })(target, key);
    IsString({ each: true, message: '$property must contain only strings.' })(target, key);
    Length(1, maxLength, { each: true, message: `each item of $property must be 1 to ${maxLength} characters long.` })(target, key);
  };
}

function Nested(cls: () => new () => object, options: { array?: { min: number; max: number } } = {}): PropertyDecorator {
  return (target: object, key: string | symbol) => {
    if (options.array) {
      IsArray({ message: '$property must be an array.' })(target, key);
      ArrayMinSize(options.array.min, { message: `$property must hold at least ${options.array.min} item(s).` })(target, key);
      ArrayMaxSize(options.array.max, { message: `$property must hold at most ${options.array.max} items.` })(target, key);
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
  @Optional() @IsObject({ message: '$property must be an object.' }) details?: Record<string, unknown>;
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

// ---- data of each event type ----

export class CallStartedDataPayload {
  @Required() @Matches(CALL_EVENT_PATTERNS.e164, { message: '$property must be an E.164 phone number, e.g. +14155550123.' }) caller_number: string;
  @Required() @Timestamp() start_time: string;
}

export class CallProgressDataPayload {
  @Optional() @Count() duration?: number;
  @Optional() @OneOf(SENTIMENTS) sentiment?: string;
  @Optional() @TextList(50, 100) topics?: string[];
}

export class CallTranscriptDataPayload {
  @Required() @Nested(() => TranscriptSegmentPayload, { array: { min: 1, max: 5000 } }) segments: TranscriptSegmentPayload[];
}

export class CallEndedDataPayload {
  @Required() @Timestamp() end_time: string;
  @Required() @Count() duration: number;
  @Optional() @Text(1, 10_000) summary?: string;
  @Optional() @OneOf(SENTIMENTS) sentiment?: string;
  @Optional() @Length(1, 64) @Matches(CALL_EVENT_PATTERNS.snakeCase, { message: '$property must be a snake_case label, e.g. appointment_booked.' }) outcome?: string;
  @Optional() @TextList(50, 100) topics?: string[];
  @Optional() @Length(1, 2048) @Matches(CALL_EVENT_PATTERNS.httpUrl, { message: '$property must be an http(s) URL.' }) recording_url?: string;
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

export class CallFailedDataPayload {
  @Required() @Text(1, 500) failure_reason: string;
  @Optional() @Timestamp() end_time?: string;
  @Optional() @Count() duration?: number;
  @Optional() @Nested(() => CallErrorPayload) error?: CallErrorPayload;
}

export class CallAbandonedDataPayload {
  @Required() @OneOf(ABANDONMENT_REASONS) reason: string;
  @Optional() @Matches(CALL_EVENT_PATTERNS.e164, { message: '$property must be an E.164 phone number, e.g. +14155550123.' }) caller_number?: string;
  @Optional() @Timestamp() start_time?: string;
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
  @Required() @Text(1, 128) id: string;
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
