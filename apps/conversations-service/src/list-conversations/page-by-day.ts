/**
 * The rules that let a list use the day (and hour) counts of conversation_counts (conversation-counts.ts): which
 * filters they count, and where a deep page starts. Pure, no database.
 */
import type { DayFacet } from '../conversation/conversation-counts.js';
import { FILTER_PARAMETERS, type ConversationListFilter } from './list-conversations.params.js';

/**
 * The day facet counting exactly this filter's conversations on each day, if any: every conversation of the
 * account, or those of one status, or those with (or without) a recording, or those of one topic (with or without
 * one status) — with or without a date range, which selects whole days of it.
 */
export function dayFacetOf(f: ConversationListFilter): DayFacet | undefined {
  const given = FILTER_PARAMETERS.filter((name) => f[name] !== undefined && name !== 'start_date' && name !== 'end_date');
  if (given.length === 0) return 'day';
  if (given.length === 2 && f.topic !== undefined && f.status !== undefined) return `day:status:${f.status}:topic:${f.topic}`;
  if (given.length > 1) return undefined;
  if (f.topic !== undefined) return `day:topic:${f.topic}`;
  if (f.status !== undefined) return `day:status:${f.status}`;
  if (f.has_recording !== undefined) return `day:has_recording:${f.has_recording}`;
  return undefined;
}

/**
 * One period's count as conversation_counts keeps it: a UTC day (`YYYY-MM-DD`) or a UTC hour (`YYYY-MM-DD HH`),
 * so string order is time order.
 */
export interface PeriodCount {
  period: string;
  conversations: number;
}

/** Where a page at `offset` starts: skip `skip` conversations of `period`, counted from its newest (descending) or oldest end. */
export interface PeriodPosition {
  period: string;
  skip: number;
}

/**
 * The period the `offset`-th match (0-based, in start-time order) started in, and how many of that period's matches
 * come before it. Undefined when the counts do not add up to the total read in the same snapshot (they are
 * kept together, so only a defect could part them: the caller then skips rows the plain way) or the offset is
 * past the end.
 */
export function locateInPeriods(periods: readonly PeriodCount[], total: number, offset: number, descending: boolean): PeriodPosition | undefined {
  let sum = 0;
  for (const { conversations } of periods) {
    if (!Number.isSafeInteger(conversations) || conversations < 0) return undefined;
    sum += conversations;
  }
  if (sum !== total || offset < 0 || offset >= total) return undefined;
  const ordered = [...periods].sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
  if (descending) ordered.reverse();
  let before = 0;
  for (const { period, conversations } of ordered) {
    if (offset < before + conversations) return { period, skip: offset - before };
    before += conversations;
  }
  return undefined;
}
