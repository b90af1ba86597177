/**
 * The call-event contract voice-platform ingestors publish, on JetStream
 * (stream CALL_EVENTS, subject `call_events.<account_id>.<type>` — or the unscoped `call_events.<type>`
 * where the deployment still accepts it — header Nats-Msg-Id = `<account_id>:<id>` or `<agent_id>:<id>`:
 * ids are unique per account only, so the bare id could collide across accounts)
 * or through POST /v1/call-events. Its one definition is call-event.schema.json, which the service compiles to
 * validate events; these types are checked against it (test/contracts/call-event-types.spec.ts).
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

/** One part of a call's cost, as the platform itemises it (e.g. `llm`, `tts`, `telephony`). */
export interface CostComponent {
  component: string;
  amount: number;
}
/** What the call cost, in USD, as the platform reports it. */
export interface CallCost {
  amount: number;
  currency: CostCurrency;
  breakdown?: CostComponent[];
}
/** Latency of one component of the call's pipeline (e.g. `llm`, `tts`, `endpointing`, `turn`), in milliseconds. */
export interface LatencyFigures {
  component: string;
  p50_ms?: number;
  p90_ms?: number;
  p99_ms?: number;
  average_ms?: number;
}
export type CallLatency = LatencyFigures[];

/** What the end of a call may carry from its platform, whichever way the call ended. */
export interface CallEndDetails {
  /** The caller, when the platform's end message names it (absent when withheld). */
  caller_number?: string;
  /** When the call started, when the platform's end message says so (its start may never have been delivered). */
  start_time?: string;
  /** The platform's own id of the call. */
  platform_call_id?: string;
  /** The platform's end reason, as it wrote it (e.g. `customer-ended-call`). */
  end_reason?: string;
  cost?: CallCost;
  latency?: CallLatency;
  /** A call that failed after it connected may have been recorded and analysed too. */
  recording_url?: string;
  summary?: string;
  sentiment?: Sentiment;
  topics?: string[];
}

export interface CallStartedData {
  /** Absent when the caller withheld the number. */
  caller_number?: string;
  start_time: string;
  /** The platform's own id of the call. */
  platform_call_id?: string;
}
export interface CallProgressData {
  duration?: number;
  sentiment?: Sentiment;
  topics?: string[];
}
export interface CallTranscriptData {
  segments: TranscriptSegment[];
  /**
   * A live "transcript so far" (default false): kept only until a transcript of the call that is not
   * provisional arrives, which supersedes every provisional one.
   */
  provisional?: boolean;
  /** What start_ms/end_ms count from (default call_start). */
  anchor?: TranscriptAnchor;
}
export interface CallEndedData extends CallEndDetails {
  end_time: string;
  /** Seconds; a platform's "ended" message may not know it yet (its end-of-call report does). */
  duration?: number;
  outcome?: string;
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
export interface CallFailedData extends CallEndDetails {
  failure_reason: string;
  end_time?: string;
  duration?: number;
  error?: CallError;
}
export interface CallAbandonedData extends CallEndDetails {
  reason: AbandonmentReason;
  end_time?: string;
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
