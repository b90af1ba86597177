/** Conversation resources (sections 2.3, 3.1, 4.1, 4.3, 4.4 of the interface). */
import type {
  AbandonmentReason, CallCost, CallError, CostComponent, FollowUpTask, IntegrationRecord, LatencyFigures, NetworkInfo,
  QualityMetrics, Satisfaction, Sentiment, TranscriptSegment,
} from './call-events.js';

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

/** Item of GET /v1/conversations: exactly the fields of 2.3, nulls where unknown. */
export interface ConversationListItem {
  id: string;
  agent_id: string;
  agent_name: string | null;
  caller_number: string | null;
  status: ConversationStatus;
  start_time: string | null;
  end_time: string | null;
  duration: number;
  sentiment: Sentiment | null;
  outcome: string | null;
  topics: string[];
  has_recording: boolean;
  has_transcript: boolean;
  summary: string | null;
  created_at: string;
}

/** A call's cost as recorded: the breakdown is [] when the platform did not itemise it. */
export interface ConversationCost extends CallCost {
  breakdown: CostComponent[];
}

/** GET /v1/conversations/{id}: the list fields plus the full record, grouped by category. */
export interface ConversationDetail extends ConversationListItem {
  updated_at: string;
  content: {
    transcript: TranscriptSegment[];
    recording_url: string | null;
    language: string | null;
    summary: string | null;
  };
  analytics: {
    sentiment: Sentiment | null;
    topics: string[];
    keywords: string[];
    satisfaction: Satisfaction | null;
    intent: string | null;
  };
  outcomes: {
    outcome: string | null;
    actions_taken: string[];
    follow_up_tasks: FollowUpTask[];
    integrations: IntegrationRecord[];
  };
  technical: {
    voice_platform: string | null;
    quality: QualityMetrics | null;
    network: NetworkInfo | null;
    errors: CallError[];
    /** The platform's own id of the call. */
    platform_call_id: string | null;
    /** The platform's end reason, as it wrote it. */
    end_reason: string | null;
    cost: ConversationCost | null;
    /** [] when unknown. */
    latency: LatencyFigures[];
  };
  /** Status-specific data of section 3.1. */
  failure_reason: string | null;
  abandonment_reason: AbandonmentReason | null;
}

export interface TranscriptView {
  conversation_id: string;
  language: string | null;
  segments: TranscriptSegment[];
}

/** Reply of conversations.transcript: JSON view, or a rendered document for text/srt/vtt. */
export type TranscriptReply =
  | { format: 'json'; transcript: TranscriptView }
  | { format: 'text' | 'srt' | 'vtt'; content_type: string; filename: string; body: string };
