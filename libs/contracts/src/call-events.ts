/**
 * The call-event contract voice-platform ingestors publish, on JetStream
 * (stream CALL_EVENTS, subject `call_events.<type>`, header Nats-Msg-Id = `<agent_id>:<id>`:
 * ids are unique per account only, so the bare id could collide across accounts)
 * or through POST /v1/call-events. The JSON Schema twin is call-event.schema.json.
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

/** 1–128 characters of [A-Za-z0-9._:-]. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** At most this many events in one POST /v1/call-events batch. */
export const MAX_CALL_EVENTS_PER_BATCH = 500;

export interface TranscriptSegment {
  speaker: Speaker;
  text: string;
  start_ms: number;
  end_ms: number;
}

export interface FollowUpTask {
  description: string;
  due_at?: string;
  assignee?: string;
}
export interface IntegrationRecord {
  /** e.g. `zendesk`, `salesforce`. */
  system: string;
  /** e.g. `ticket_created`, `crm_updated`. */
  action: string;
  reference?: string;
  details?: Record<string, unknown>;
}
export interface QualityMetrics {
  mos?: number;
  jitter_ms?: number;
  packet_loss_pct?: number;
  latency_ms?: number;
}
export interface NetworkInfo {
  codec?: string;
  carrier?: string;
  region?: string;
}
export interface CallError {
  code: string;
  message: string;
  occurred_at?: string;
}
export interface Satisfaction {
  /** 1 (very dissatisfied) to 5 (very satisfied). */
  score?: number;
  indicators?: string[];
}

export interface CallStartedData {
  caller_number: string;
  start_time: string;
}
export interface CallProgressData {
  duration?: number;
  sentiment?: Sentiment;
  topics?: string[];
}
export interface CallTranscriptData {
  segments: TranscriptSegment[];
}
export interface CallEndedData {
  end_time: string;
  duration: number;
  summary?: string;
  sentiment?: Sentiment;
  outcome?: string;
  topics?: string[];
  recording_url?: string;
  language?: string;
  intent?: string;
  satisfaction?: Satisfaction;
  keywords?: string[];
  actions_taken?: string[];
  follow_up_tasks?: FollowUpTask[];
  integrations?: IntegrationRecord[];
  quality?: QualityMetrics;
  network?: NetworkInfo;
  errors?: CallError[];
}
export interface CallFailedData {
  failure_reason: string;
  end_time?: string;
  duration?: number;
  error?: CallError;
}
export interface CallAbandonedData {
  reason: AbandonmentReason;
  caller_number?: string;
  start_time?: string;
}

interface CallEventBase<T extends CallEventType, D> {
  id: string;
  type: T;
  conversation_id: string;
  agent_id: string;
  occurred_at: string;
  data: D;
}
export type CallEvent =
  | CallEventBase<'call.started', CallStartedData>
  | CallEventBase<'call.progress', CallProgressData>
  | CallEventBase<'call.transcript', CallTranscriptData>
  | CallEventBase<'call.ended', CallEndedData>
  | CallEventBase<'call.failed', CallFailedData>
  | CallEventBase<'call.abandoned', CallAbandonedData>;
