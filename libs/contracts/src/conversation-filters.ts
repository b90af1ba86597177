/**
 * The filters of the conversation list, described once: which field of a conversation each one selects on
 * and how it compares. GET /v1/conversations, GET /v1/conversations/stats and GET /v1/conversations/stream
 * take (some of) them; conversations-service compiles this table to its SQL and to its in-memory columns
 * (conversation-filters/), and conversationMatches compiles it to a predicate over one conversation.
 */
import type { Sentiment } from './call-events.js';

/** Sentiments in order, negative < neutral < positive: what sort_by=sentiment sorts by and the sentiment filter compares. */
export const SENTIMENT_RANKS: Readonly<Record<Sentiment, number>> = { negative: 0, neutral: 1, positive: 2 };

/** A sentiment's rank; an unknown sentiment has none (null sorts last either way). */
export function sentimentRank(sentiment: string | null | undefined): number | null {
  return sentiment != null && Object.hasOwn(SENTIMENT_RANKS, sentiment) ? SENTIMENT_RANKS[sentiment as Sentiment] : null;
}

/**
 * How a filter compares a conversation's field with its value: equal, at least / at most (inclusive; a
 * conversation without the field matches neither), holding the value as a substring, or among its values.
 */
export type FilterComparison = 'equals' | 'atLeast' | 'atMost' | 'contains' | 'includes';

export interface ConversationFilterDefinition {
  /** The conversation's field (as the read model keeps it): search_text is the lower-cased summary and transcript, topics the lower-cased topics. */
  field: string;
  comparison: FilterComparison;
}

/** Every filter parameter, in the order the list applies them. */
export const CONVERSATION_FILTERS = {
  agent_id: { field: 'agent_id', comparison: 'equals' },
  status: { field: 'status', comparison: 'equals' },
  sentiment: { field: 'sentiment', comparison: 'equals' },
  outcome: { field: 'outcome', comparison: 'equals' },
  caller: { field: 'caller_number', comparison: 'equals' },
  min_duration: { field: 'duration', comparison: 'atLeast' },
  max_duration: { field: 'duration', comparison: 'atMost' },
  min_cost: { field: 'cost', comparison: 'atLeast' },
  max_cost: { field: 'cost', comparison: 'atMost' },
  start_date: { field: 'start_time', comparison: 'atLeast' },
  end_date: { field: 'start_time', comparison: 'atMost' },
  has_recording: { field: 'has_recording', comparison: 'equals' },
  has_transcript: { field: 'has_transcript', comparison: 'equals' },
  search: { field: 'search_text', comparison: 'contains' },
  topic: { field: 'topics', comparison: 'includes' },
} as const satisfies Record<string, ConversationFilterDefinition>;

export type ConversationFilterParameter = keyof typeof CONVERSATION_FILTERS;
export type ConversationFilterField = (typeof CONVERSATION_FILTERS)[ConversationFilterParameter]['field'];
export const CONVERSATION_FILTER_PARAMETERS = Object.keys(CONVERSATION_FILTERS) as ConversationFilterParameter[];

/** A filter's value, in the form the conversation's field has (numbers compare as numbers, strings in byte order). */
export type FilterValue = string | number | boolean;

/** Whether a conversation's field value passes a comparison with a filter's value. */
export function passesComparison(comparison: FilterComparison, actual: unknown, wanted: FilterValue): boolean {
  switch (comparison) {
    case 'equals':
      return actual === wanted;
    case 'atLeast':
      return actual !== null && actual !== undefined && (actual as FilterValue) >= wanted;
    case 'atMost':
      return actual !== null && actual !== undefined && (actual as FilterValue) <= wanted;
    case 'contains':
      return typeof actual === 'string' && actual.includes(String(wanted));
    case 'includes':
      return Array.isArray(actual) && actual.includes(wanted);
  }
}

/**
 * Whether a conversation passes every given filter. `conversation` holds the fields the given filters select
 * on, in the filter values' form (e.g. start times as numbers when the dates are numbers).
 */
export function conversationMatches(
  conversation: Readonly<Partial<Record<ConversationFilterField, unknown>>>,
  filter: Readonly<Partial<Record<ConversationFilterParameter, FilterValue>>>,
): boolean {
  for (const parameter of CONVERSATION_FILTER_PARAMETERS) {
    const wanted = filter[parameter];
    if (wanted === undefined) continue;
    const { field, comparison } = CONVERSATION_FILTERS[parameter];
    if (!passesComparison(comparison, conversation[field], wanted)) return false;
  }
  return true;
}
