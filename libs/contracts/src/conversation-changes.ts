/**
 * Live changes of the conversation list (GET /v1/conversations/stream): conversations-service publishes one
 * message per conversation its projection wrote, after the commit, on an account's subject of the
 * CONVERSATION_CHANGES stream; every gateway replica reads that stream for its subscribers.
 */
import { conversationMatches } from './conversation-filters.js';
import type { ConversationListItem, ConversationStatus } from './conversations.js';
import type { EndedConversationDetail } from './outbound-events.js';

export const CONVERSATION_CHANGES_STREAM = 'CONVERSATION_CHANGES';
export const CONVERSATION_CHANGES_SUBJECT_ROOT = 'conversation_changes';
/** One account's changes: `conversation_changes.<account_id>` (account ids hold no `.`, `*` or `>`). */
export const conversationChangesSubject = (accountId: string) => `${CONVERSATION_CHANGES_SUBJECT_ROOT}.${accountId}`;

/**
 * What the stream keeps for resuming (Last-Event-ID): changes younger than a day, at most a million. Older
 * ones are dropped by the bus; a client resuming from a dropped one is told so (400 on Last-Event-ID).
 */
export const CONVERSATION_CHANGES_RETENTION = { maxAgeMs: 24 * 60 * 60 * 1000, maxMessages: 1_000_000 } as const;

export const CONVERSATION_CHANGE_TYPES = ['conversation.created', 'conversation.updated'] as const;
export type ConversationChangeType = (typeof CONVERSATION_CHANGE_TYPES)[number];

/** One message of CONVERSATION_CHANGES. */
export interface ConversationChange {
  type: ConversationChangeType;
  account_id: string;
  /** The conversation's stream version this item shows: a subscriber never goes back to an older one. */
  version: number;
  conversation: ConversationListItem;
  /**
   * On a change that shows the call over (completed, failed or abandoned): its full record as it stands when the
   * change is published, the transcript left out past what an outbound event may carry (endedDetailForEvent).
   * Absent when the record is gone or would not fit the bus even so.
   */
  ended_detail?: EndedConversationDetail;
}

/** The list filters the stream takes, validated by conversations-service with the list's own parser. */
export const STREAM_FILTER_PARAMETERS = ['agent_id', 'status'] as const;

export interface StreamFilterRequest {
  query: Record<string, string | string[] | undefined>;
}
export interface StreamFilter {
  agent_id?: string;
  status?: ConversationStatus;
}

/** Whether a change belongs on a stream opened with this filter (the list's own filters, CONVERSATION_FILTERS). */
export function changeMatchesFilter(change: Pick<ConversationChange, 'conversation'>, filter: StreamFilter): boolean {
  return conversationMatches(change.conversation, filter);
}
