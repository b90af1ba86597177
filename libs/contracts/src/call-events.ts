/**
 * The call-event contract voice-platform ingestors publish, on JetStream
 * (stream CALL_EVENTS, subject `call_events.<account_id>.<type>` — or the unscoped `call_events.<type>`
 * where the deployment still accepts it — header Nats-Msg-Id = `<account_id>:<id>` or `<agent_id>:<id>`:
 * ids are unique per account only, so the bare id could collide across accounts)
 * or through POST /v1/call-events. Its one definition is the TypeBox schema of call-event.schema.ts: the types
 * below are derived from it (`Static<>`), the service compiles it to validate events.
 */
export const CALL_EVENT_TYPES = [
  'call.started',
  'call.progress',
  'call.transcript',
  'call.ended',
  'call.failed',
  'call.abandoned',
] as const;
export type CallEventType = (typeof CALL_EVENT_TYPES)[number];

export const SPEAKERS = ['agent', 'caller'] as const;
export type Speaker = (typeof SPEAKERS)[number];

export const ABANDONMENT_REASONS = ['busy', 'no_answer', 'caller_hangup'] as const;
export type AbandonmentReason = (typeof ABANDONMENT_REASONS)[number];

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** The only currency costs are reported in: amounts of different calls can then be compared and filtered. */
export const COST_CURRENCIES = ['USD'] as const;
export type CostCurrency = (typeof COST_CURRENCIES)[number];

/**
 * What a transcript segment's start_ms/end_ms count from: the call's start (the default), or the event's
 * occurred_at, for platforms whose live transcripts carry only a wall-clock time.
 */
export const TRANSCRIPT_ANCHORS = ['call_start', 'occurred_at'] as const;
export type TranscriptAnchor = (typeof TRANSCRIPT_ANCHORS)[number];

/** 1–128 characters of [A-Za-z0-9._:-]. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** At most this many events in one POST /v1/call-events batch. */
export const MAX_CALL_EVENTS_PER_BATCH = 500;

export type {
  CallAbandonedData, CallCost, CallEndDetails, CallEndedData, CallError, CallEvent, CallFailedData, CallLatency, CallProgressData,
  CallStartedData, CallTranscriptData, CostComponent, FollowUpTask, IntegrationRecord, LatencyFigures, NetworkInfo, QualityMetrics,
  Satisfaction, TranscriptSegment,
} from './call-event.schema.js';
