/**
 * The call-event contract, defined once as a TypeBox schema (JSON Schema draft 2020-12): the TypeScript types of
 * call-events.ts are `Static<>` of these definitions, the service compiles CALL_EVENT_SCHEMA with Ajv
 * (call-event-payloads.ts) and the gateway shows it as OpenAPI components. The walk that explains a refused event
 * (call-event-problems.ts) reads the same schema in the order its properties are listed here.
 */
import { Type, type Static, type StringOptions, type TProperties, type TSchema } from '@sinclair/typebox';
import {
  ABANDONMENT_REASONS, CALL_EVENT_TYPES, COST_CURRENCIES, SENTIMENTS, SPEAKERS, TRANSCRIPT_ANCHORS,
  type CallEventType,
} from './call-events.js';

const ref = <T>(def: string, options: object = {}) => Type.Unsafe<T>({ $ref: `#/$defs/${def}`, ...options });
/** An enum as the contract writes it: `{ enum }` with no `type`, typed as the union of its values. */
const OneOf = <const T extends readonly string[]>(values: T, options: object = {}) => Type.Unsafe<T[number]>({ enum: [...values], ...options });
const Closed = <T extends TProperties>(properties: T, options: object = {}) => Type.Object(properties, { additionalProperties: false, ...options });
const Timestamp = (options: object = {}) => ref<string>('timestamp', options);
const E164 = (description: string) => ref<string>('e164', { description });
/** Free text that is not blank and that every store can hold. */
const Text = (maxLength: number, options: StringOptions = {}) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', $ref: '#/$defs/storableText', ...options });
/** A list of short texts (topics, keywords…), each 1 to `maxLength` characters. */
const Texts = (maxItems: number, maxLength: number) =>
  Type.Array(Type.String({ minLength: 1, maxLength, $ref: '#/$defs/storableText' }), { maxItems });
const List = <T>(def: string, maxItems: number, minItems?: number) =>
  Type.Array(ref<T>(def), { ...(minItems === undefined ? {} : { minItems }), maxItems });
const Int32 = (options: object = {}) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, ...options });
const NonNegative = (options: object = {}) => Type.Number({ minimum: 0, ...options });
const HttpUrl = () => Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s/?#]+[^\\s]*$', $ref: '#/$defs/storableText' });
const Sentiment = () => OneOf(SENTIMENTS);

export const TranscriptSegmentSchema = Closed({
  speaker: OneOf(SPEAKERS),
  text: Text(10_000),
  start_ms: Int32(),
  end_ms: Int32({ description: 'Must not be less than start_ms (checked by the service; JSON Schema cannot compare two fields).' }),
});
export const CallErrorSchema = Closed({
  code: Text(100),
  message: Text(1000),
  occurred_at: Type.Optional(Timestamp()),
});
export const SatisfactionSchema = Closed({
  /** 1 (very dissatisfied) to 5 (very satisfied). */
  score: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  indicators: Type.Optional(Texts(20, 200)),
});
export const FollowUpTaskSchema = Closed({
  description: Text(1000),
  due_at: Type.Optional(Timestamp()),
  assignee: Type.Optional(Text(200)),
});
export const IntegrationRecordSchema = Closed({
  /** e.g. `zendesk`, `salesforce`. */
  system: Text(100),
  /** e.g. `ticket_created`, `crm_updated`. */
  action: Text(100),
  reference: Type.Optional(Text(200)),
  details: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', $ref: '#/$defs/storableJson' })),
});
export const QualityMetricsSchema = Closed({
  mos: Type.Optional(Type.Number({ minimum: 1, maximum: 5 })),
  jitter_ms: Type.Optional(NonNegative()),
  packet_loss_pct: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  latency_ms: Type.Optional(NonNegative()),
});
export const NetworkInfoSchema = Closed({
  codec: Type.Optional(Text(50)),
  carrier: Type.Optional(Text(100)),
  region: Type.Optional(Text(100)),
});
/** One part of a call's cost, as the platform itemises it (e.g. `llm`, `tts`, `telephony`). */
export const CostComponentSchema = Closed({
  component: Text(50, { description: 'What the amount paid for, as the platform names it, e.g. llm, tts, telephony.' }),
  amount: NonNegative({ description: 'USD.' }),
});
/** What the call cost, in USD, as the platform reports it. */
export const CallCostSchema = Closed(
  {
    amount: NonNegative({ description: 'Total, in USD.' }),
    currency: OneOf(COST_CURRENCIES),
    breakdown: Type.Optional(List<Static<typeof CostComponentSchema>>('CostComponent', 20, 0)),
  },
  { description: 'What the call cost, as the platform reports it.' },
);
/** Latency of one component of the call's pipeline (e.g. `llm`, `tts`, `endpointing`, `turn`), in milliseconds. */
export const LatencyFiguresSchema = Closed(
  {
    component: Text(50, { description: 'e.g. llm, tts, transcriber, turn.' }),
    p50_ms: Type.Optional(NonNegative()),
    p90_ms: Type.Optional(NonNegative()),
    p99_ms: Type.Optional(NonNegative()),
    average_ms: Type.Optional(NonNegative()),
  },
  { description: "Latency of one component of the call's pipeline, in milliseconds." },
);

const PLATFORM_CALL_ID = () => Text(200, { description: "The platform's own id of the call." });

/** What the end of a call may carry from its platform, whichever way the call ended (listed after each end's own fields). */
const END_DETAILS = {
  caller_number: Type.Optional(E164("The caller, when the platform's end message names it; absent when withheld.")),
  start_time: Type.Optional(Timestamp({ description: "When the call started, when the platform's end message says so (its start may never have been delivered)." })),
  platform_call_id: Type.Optional(PLATFORM_CALL_ID()),
  end_reason: Type.Optional(Text(200, { description: "The platform's end reason, as it wrote it, e.g. customer-ended-call." })),
  cost: Type.Optional(ref<Static<typeof CallCostSchema>>('CallCost')),
  latency: Type.Optional(List<Static<typeof LatencyFiguresSchema>>('LatencyFigures', 20, 0)),
  /** A call that failed after it connected may have been recorded and analysed too. */
  recording_url: Type.Optional(HttpUrl()),
  summary: Type.Optional(Text(10_000)),
  sentiment: Type.Optional(Sentiment()),
  topics: Type.Optional(Texts(50, 100)),
};
const CallEndDetailsSchema = Closed(END_DETAILS);

export const CallStartedDataSchema = Closed({
  caller_number: Type.Optional(E164('Absent when the caller withheld the number.')),
  start_time: Timestamp(),
  platform_call_id: Type.Optional(PLATFORM_CALL_ID()),
});
export const CallProgressDataSchema = Closed({
  duration: Type.Optional(Int32()),
  sentiment: Type.Optional(Sentiment()),
  topics: Type.Optional(Texts(50, 100)),
});
export const CallTranscriptDataSchema = Closed({
  segments: Type.Array(ref<Static<typeof TranscriptSegmentSchema>>('TranscriptSegment'), { minItems: 1, maxItems: 5000 }),
  provisional: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'A live "transcript so far": kept only until a transcript of the call that is not provisional arrives, which supersedes every provisional one. Among provisional transcripts, a later one (by occurred_at) replaces the segments of the same speaker starting at the same position.',
    }),
  ),
  anchor: Type.Optional(
    OneOf(TRANSCRIPT_ANCHORS, {
      default: 'call_start',
      description:
        "What start_ms and end_ms count from: the call's start, or this event's occurred_at (for platforms whose live transcripts carry only a wall-clock time).",
    }),
  ),
});
export const CallEndedDataSchema = Closed({
  end_time: Timestamp(),
  duration: Type.Optional(
    Int32({ description: 'Seconds. May be absent from a platform\'s "ended" message and arrive with a later call.ended (its end-of-call report).' }),
  ),
  outcome: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9]*(_[a-z0-9]+)*$', description: 'snake_case label, e.g. appointment_booked.' }),
  ),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', description: 'ISO 639-1 code, e.g. en.' })),
  intent: Type.Optional(Text(100)),
  satisfaction: Type.Optional(ref<Static<typeof SatisfactionSchema>>('Satisfaction')),
  keywords: Type.Optional(Texts(100, 100)),
  actions_taken: Type.Optional(Texts(50, 500)),
  follow_up_tasks: Type.Optional(List<Static<typeof FollowUpTaskSchema>>('FollowUpTask', 50, 0)),
  integrations: Type.Optional(List<Static<typeof IntegrationRecordSchema>>('IntegrationRecord', 50, 0)),
  quality: Type.Optional(ref<Static<typeof QualityMetricsSchema>>('QualityMetrics')),
  network: Type.Optional(ref<Static<typeof NetworkInfoSchema>>('NetworkInfo')),
  errors: Type.Optional(List<Static<typeof CallErrorSchema>>('CallError', 50, 0)),
  ...END_DETAILS,
});
export const CallFailedDataSchema = Closed({
  failure_reason: Text(500),
  end_time: Type.Optional(Timestamp()),
  duration: Type.Optional(Int32()),
  error: Type.Optional(ref<Static<typeof CallErrorSchema>>('CallError')),
  ...END_DETAILS,
});
export const CallAbandonedDataSchema = Closed({
  reason: OneOf(ABANDONMENT_REASONS),
  end_time: Type.Optional(Timestamp()),
  ...END_DETAILS,
});

/** The data definition of each event type, by the name it has in the schema's $defs. */
const DATA_DEFINITIONS = {
  'call.started': 'CallStartedData',
  'call.progress': 'CallProgressData',
  'call.transcript': 'CallTranscriptData',
  'call.ended': 'CallEndedData',
  'call.failed': 'CallFailedData',
  'call.abandoned': 'CallAbandonedData',
} as const satisfies Record<CallEventType, string>;

const TIMESTAMP_DEFINITION = Type.String({
  description:
    'RFC 3339 / ISO 8601 date-time with seconds and a time zone, e.g. 2025-01-31T14:05:00Z; year 0001-9999 both as written and in UTC (a date of 0001-01-01 takes no offset ahead of UTC, a date of 9999-12-31 none behind it), no leap second (23:59:60), nothing PostgreSQL rounds into the year 10000 (9999-12-31T23:59:59.9999995Z and later), at most nine fractional digits.',
  format: 'date-time',
  pattern:
    '^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$',
  not: {
    pattern:
      '^0001-01-01T.*\\+(0[1-9]|1[0-9]|2[0-3]|00:0[1-9]|00:[1-5][0-9])|^9999-12-31T.*-(0[1-9]|1[0-9]|2[0-3]|00:0[1-9]|00:[1-5][0-9])|^9999-12-31T23:59:59\\.999999[5-9][0-9]*(Z|[+-]00:00)$',
  },
});

const DEFINITIONS: Record<string, TSchema> = {
  timestamp: TIMESTAMP_DEFINITION,
  storableText: Type.String({
    description:
      'Text every store behind the contract can hold: no U+0000 and no unpaired UTF-16 surrogate. The pattern is a Unicode (ECMA-262 `u` flag) regular expression: a well-formed surrogate pair is one code point and passes.',
    pattern: '^[^\\u0000\\uD800-\\uDFFF]*$',
  }),
  storableJson: Type.Unsafe<unknown>({
    description: 'Any JSON value whose strings and object keys are all storableText.',
    anyOf: [
      { $ref: '#/$defs/storableText' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: { $ref: '#/$defs/storableJson' } },
      { type: 'object', propertyNames: { $ref: '#/$defs/storableText' }, additionalProperties: { $ref: '#/$defs/storableJson' } },
    ],
  }),
  e164: Type.String({ description: 'E.164 phone number, e.g. +14155550123.', pattern: '^\\+[1-9][0-9]{1,14}$' }),
  TranscriptSegment: TranscriptSegmentSchema,
  CallError: CallErrorSchema,
  Satisfaction: SatisfactionSchema,
  FollowUpTask: FollowUpTaskSchema,
  IntegrationRecord: IntegrationRecordSchema,
  QualityMetrics: QualityMetricsSchema,
  NetworkInfo: NetworkInfoSchema,
  CostComponent: CostComponentSchema,
  CallCost: CallCostSchema,
  LatencyFigures: LatencyFiguresSchema,
  CallStartedData: CallStartedDataSchema,
  CallProgressData: CallProgressDataSchema,
  CallTranscriptData: CallTranscriptDataSchema,
  CallEndedData: CallEndedDataSchema,
  CallFailedData: CallFailedDataSchema,
  CallAbandonedData: CallAbandonedDataSchema,
};

/** The envelope every event shares; `data` is checked by the definition its `type` names (the `allOf` branches). */
export const CallEventEnvelopeSchema = Closed(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '\\S',
      not: { pattern: '[\\u0000-\\u001F\\u007F-\\u009F]' },
      description:
        'Unique event id; a repeated id changes nothing. No control characters (U+0000-U+001F, U+007F-U+009F): the id is part of the Nats-Msg-Id header, where CR or LF cannot travel, so such an id is refused (400 invalid_parameter on POST, dropped as invalid on JetStream).',
      $ref: '#/$defs/storableText',
    }),
    type: OneOf(CALL_EVENT_TYPES),
    conversation_id: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'Stable id of the call.' }),
    agent_id: Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', $ref: '#/$defs/storableText' }),
    occurred_at: Timestamp(),
    data: Type.Unsafe<unknown>({ type: 'object' }),
  },
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://schemas.voice-agent-ops.dev/call-event.schema.json',
    title: 'Call event',
    description:
      'An event voice-platform ingestors publish to JetStream (stream CALL_EVENTS, subject call_events.<type>, header Nats-Msg-Id = <agent_id>:<id>, since ids are unique per account only) or POST to /v1/call-events. The single definition of the contract: the service compiles it (libs/contracts/src/call-event-payloads.ts) and reports the first problem in the order the properties are listed here; the only rule it checks beyond this schema is end_ms >= start_ms of transcript segments. String patterns are Unicode (ECMA-262 `u` flag) regular expressions.',
    allOf: Object.entries(DATA_DEFINITIONS).map(([type, def]) => ({
      if: { properties: { type: { const: type } }, required: ['type'] },
      then: { properties: { data: { $ref: `#/$defs/${def}` } } },
    })),
    $defs: DEFINITIONS,
  },
);

/**
 * The schema as plain JSON (TypeBox's symbol keys dropped): what Ajv compiles, the walk reads and the gateway turns
 * into OpenAPI components.
 */
export const CALL_EVENT_SCHEMA_JSON: unknown = JSON.parse(JSON.stringify(CallEventEnvelopeSchema));

export type TranscriptSegment = Static<typeof TranscriptSegmentSchema>;
export type FollowUpTask = Static<typeof FollowUpTaskSchema>;
export type IntegrationRecord = Static<typeof IntegrationRecordSchema>;
export type QualityMetrics = Static<typeof QualityMetricsSchema>;
export type NetworkInfo = Static<typeof NetworkInfoSchema>;
export type CallError = Static<typeof CallErrorSchema>;
export type Satisfaction = Static<typeof SatisfactionSchema>;
export type CostComponent = Static<typeof CostComponentSchema>;
export type CallCost = Static<typeof CallCostSchema>;
export type LatencyFigures = Static<typeof LatencyFiguresSchema>;
export type CallLatency = LatencyFigures[];
export type CallEndDetails = Static<typeof CallEndDetailsSchema>;
export type CallStartedData = Static<typeof CallStartedDataSchema>;
export type CallProgressData = Static<typeof CallProgressDataSchema>;
export type CallTranscriptData = Static<typeof CallTranscriptDataSchema>;
export type CallEndedData = Static<typeof CallEndedDataSchema>;
export type CallFailedData = Static<typeof CallFailedDataSchema>;
export type CallAbandonedData = Static<typeof CallAbandonedDataSchema>;

interface CallEventData {
  'call.started': CallStartedData;
  'call.progress': CallProgressData;
  'call.transcript': CallTranscriptData;
  'call.ended': CallEndedData;
  'call.failed': CallFailedData;
  'call.abandoned': CallAbandonedData;
}
type Envelope = Omit<Static<typeof CallEventEnvelopeSchema>, 'type' | 'data'>;
/** A call event: the envelope, with the data its type's definition describes (a union discriminated by `type`). */
export type CallEvent = { [T in CallEventType]: Envelope & { type: T; data: CallEventData[T] } }[CallEventType];
