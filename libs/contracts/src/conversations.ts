/** Conversation resources (sections 2.3, 3.1, 4.1, 4.3, 4.4 of the interface). */
import { Type, type Static } from '@sinclair/typebox';
import { CALL_EVENT_SCHEMA } from './call-event-payloads.js';
import {
  ABANDONMENT_REASONS, COST_CURRENCIES, SENTIMENTS,
  type CallError, type CostComponent, type FollowUpTask, type IntegrationRecord, type LatencyFigures, type NetworkInfo,
  type QualityMetrics, type Satisfaction, type TranscriptSegment,
} from './call-events.js';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from './view-schema.js';

export const CONVERSATION_STATUSES = ['in_progress', 'completed', 'failed', 'abandoned'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export const CONVERSATION_SORT_FIELDS = ['start_time', 'duration', 'sentiment'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;
export const BOOLEAN_VALUES = ['true', 'false'] as const;

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'vtt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/**
 * Longest values the conversation list's filters take (characters, as everywhere: code points): free text
 * (agent_id, outcome, topic, search) and ISO 8601 dates (`2025-01-31T14:05:00.123456789+05:30` is the longest form).
 */
export const LIST_FILTER_LIMITS = { text: 200, date: 35 } as const;

/** Ids in paths are at most this long (conversation ids: CONVERSATION_ID_PATTERN); a longer one matches nothing (404). */
export const MAX_ID_LENGTH = 128;

/** Page size rules shared by every list endpoint. */
export const PAGINATION = { defaultPerPage: 25, maxPerPage: 100 } as const;

/**
 * A definition of the call-event schema (call-event.schema.ts) used inside a view, typed as its type: the views
 * and the call-event contract say the same thing about a transcript segment, an error, a cost line…
 */
const callEventDefinition = <T>(name: string) => Type.Unsafe<T>(CALL_EVENT_SCHEMA.$defs[name]);

/** The call-event definitions the conversation views embed, by their name in the call-event schema's $defs. */
export const CALL_EVENT_DEFINITION_SCHEMAS = {
  e164: callEventDefinition<string>('e164'),
  TranscriptSegment: callEventDefinition<TranscriptSegment>('TranscriptSegment'),
  CallError: callEventDefinition<CallError>('CallError'),
  Satisfaction: callEventDefinition<Satisfaction>('Satisfaction'),
  FollowUpTask: callEventDefinition<FollowUpTask>('FollowUpTask'),
  IntegrationRecord: callEventDefinition<IntegrationRecord>('IntegrationRecord'),
  QualityMetrics: callEventDefinition<QualityMetrics>('QualityMetrics'),
  NetworkInfo: callEventDefinition<NetworkInfo>('NetworkInfo'),
  CostComponent: callEventDefinition<CostComponent>('CostComponent'),
  LatencyFigures: callEventDefinition<LatencyFigures>('LatencyFigures'),
};
const defs = CALL_EVENT_DEFINITION_SCHEMAS;

const sentiment = Nullable(StringEnum(SENTIMENTS));
const listItemProperties = {
  id: Type.String({ examples: ['call_01HZX3'] }),
  agent_id: Type.String(),
  agent_name: NullableString(),
  caller_number: Nullable(
    Type.Unsafe<string>({
      oneOf: [defs.e164, { type: 'string', pattern: '^\\*\\*\\d{0,2}$', description: 'Masked: the agent redacts caller_number, only its last 2 digits are kept.', examples: ['**23'] }],
    }),
  ),
  status: StringEnum(CONVERSATION_STATUSES),
  start_time: Nullable(DateTime()),
  end_time: Nullable(DateTime()),
  duration: Type.Integer({ minimum: 0, description: 'Seconds.' }),
  sentiment,
  outcome: NullableString(),
  topics: Type.Array(Type.String()),
  has_recording: Type.Boolean(),
  has_transcript: Type.Boolean(),
  summary: NullableString(),
  created_at: DateTime(),
};

/** Item of GET /v1/conversations: exactly the fields of 2.3, nulls where unknown. */
export const ConversationListItemSchema = ClosedObject(listItemProperties, { description: 'A call as listed (interface 2.3).' });
export type ConversationListItem = Static<typeof ConversationListItemSchema>;

/** A call's cost as recorded: the breakdown is [] when the platform did not itemise it. */
export const ConversationCostSchema = ClosedObject(
  {
    amount: Type.Number({ minimum: 0, description: 'Total, in USD.' }),
    currency: StringEnum(COST_CURRENCIES),
    breakdown: Type.Array(defs.CostComponent, { description: '[] when the platform did not itemise the cost.' }),
  },
  { description: 'What the call cost, as its platform reported it; null when unknown.' },
);
export type ConversationCost = Static<typeof ConversationCostSchema>;

/** GET /v1/conversations/{id}: the list fields plus the full record, grouped by category. */
export const ConversationDetailSchema = ClosedObject(
  {
    ...listItemProperties,
    updated_at: DateTime(),
    content: ClosedObject({
      transcript: Type.Array(defs.TranscriptSegment),
      recording_url: NullableString({ description: 'http(s) URL of the recording.' }),
      language: NullableString(),
      summary: NullableString(),
    }),
    analytics: ClosedObject({
      sentiment,
      topics: Type.Array(Type.String()),
      keywords: Type.Array(Type.String()),
      satisfaction: Nullable(defs.Satisfaction),
      intent: NullableString(),
    }),
    outcomes: ClosedObject({
      outcome: NullableString(),
      actions_taken: Type.Array(Type.String()),
      follow_up_tasks: Type.Array(defs.FollowUpTask),
      integrations: Type.Array(defs.IntegrationRecord),
    }),
    technical: ClosedObject({
      voice_platform: NullableString(),
      quality: Nullable(defs.QualityMetrics),
      network: Nullable(defs.NetworkInfo),
      errors: Type.Array(defs.CallError, { description: 'Every error reported, each once.' }),
      platform_call_id: NullableString({ description: 'The voice platform’s own id of the call.' }),
      end_reason: NullableString({ description: 'Why the call ended, as the voice platform wrote it (e.g. customer-ended-call).' }),
      cost: Nullable(ConversationCostSchema),
      latency: Type.Array(defs.LatencyFigures, { description: 'Latency per component of the call’s pipeline; [] when unknown.' }),
    }),
    // Status-specific data of section 3.1.
    failure_reason: NullableString({ description: 'Set when status is failed.' }),
    abandonment_reason: Nullable(StringEnum(ABANDONMENT_REASONS, { description: 'Set when status is abandoned.' })),
  },
  { description: 'Every field of the list item plus the full record, grouped by category.' },
);
export type ConversationDetail = Static<typeof ConversationDetailSchema>;

/** GET /v1/conversations/{id}/transcript as JSON. */
export const TranscriptViewSchema = ClosedObject({
  conversation_id: Type.String(),
  language: NullableString(),
  segments: Type.Array(defs.TranscriptSegment),
});
export type TranscriptView = Static<typeof TranscriptViewSchema>;

/** Reply of conversations.transcript: JSON view, or a rendered document for text/srt/vtt. */
export type TranscriptReply =
  | { format: 'json'; transcript: TranscriptView }
  | { format: 'text' | 'srt' | 'vtt'; content_type: string; filename: string; body: string };
