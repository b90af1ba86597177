import type { ConversationListFilter } from './list-conversations.params.js';

/** `%`, `_` and the escape character itself are literal in a search. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const SENTIMENT_RANK = { negative: 0, neutral: 1, positive: 2 } as const;

export interface ListSql {
  where: string;
  params: unknown[];
  orderBy: string;
  /** The exact inverse order (a backward scan of the same index), for reading deep pages from the far end. */
  reverseOrderBy: string;
  /** True when only the account scopes the list (its total is kept in account_totals). */
  unfiltered: boolean;
  /** Set when the topic is the only filter: its total is an index-only count of conversation_topics. */
  topicOnly?: string;
  /** Set (the LIKE pattern) when the search is the only filter: its total is counted on the narrow conversation_search. */
  searchOnly?: string;
}

/**
 * WHERE and ORDER BY of the list query. Every predicate matches an index that
 * starts with account_id; every order ends with start_time and id so pages
 * never overlap or skip.
 */
export function buildListSql(accountId: string, f: ConversationListFilter, alias = 'c'): ListSql {
  const params: unknown[] = [accountId];
  const where = [`${alias}.account_id = $1`];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.agent_id !== undefined) add((p) => `${alias}.agent_id = ${p}`, f.agent_id);
  if (f.status !== undefined) add((p) => `${alias}.status = ${p}`, f.status);
  if (f.sentiment !== undefined) add((p) => `${alias}.sentiment_rank = ${p}::smallint`, SENTIMENT_RANK[f.sentiment]);
  if (f.outcome !== undefined) add((p) => `${alias}.outcome = ${p}`, f.outcome);
  if (f.caller !== undefined) add((p) => `${alias}.caller_number = ${p}`, f.caller);
  if (f.min_duration !== undefined) add((p) => `${alias}.duration >= ${p}::int`, f.min_duration);
  if (f.max_duration !== undefined) add((p) => `${alias}.duration <= ${p}::int`, f.max_duration);
  if (f.start_date !== undefined) add((p) => `${alias}.start_time >= ${p}::timestamptz`, f.start_date);
  if (f.end_date !== undefined) add((p) => `${alias}.start_time <= ${p}::timestamptz`, f.end_date);
  if (f.has_recording !== undefined) add((p) => `${alias}.has_recording = ${p}::boolean`, f.has_recording);
  if (f.has_transcript !== undefined) add((p) => `${alias}.has_transcript = ${p}::boolean`, f.has_transcript);
  if (f.search !== undefined) add((p) => `${alias}.search_text LIKE ${p} ESCAPE '\\'`, `%${escapeLike(f.search)}%`);
  if (f.topic !== undefined) {
    add((p) => `EXISTS (SELECT 1 FROM conversations.conversation_topics t WHERE t.account_id = $1 AND t.topic = ${p} AND t.conversation_id = ${alias}.id)`, f.topic);
  }

  const order = (ascending: boolean, nullsLast: boolean) => {
    const dir = ascending ? 'ASC' : 'DESC';
    const tail = `${alias}.start_time ${dir}, ${alias}.id ${dir}`;
    return f.sort_by === 'duration' ? `${alias}.duration ${dir}, ${tail}`
      : f.sort_by === 'sentiment' ? `${alias}.sentiment_rank ${dir} NULLS ${nullsLast ? 'LAST' : 'FIRST'}, ${tail}`
      : tail;
  };
  const ascending = f.sort_order === 'asc';
  return {
    where: where.join(' AND '),
    params,
    orderBy: order(ascending, true),
    reverseOrderBy: order(!ascending, false),
    unfiltered: where.length === 1,
    topicOnly: where.length === 2 && f.topic !== undefined ? f.topic : undefined,
    searchOnly: where.length === 2 && f.search !== undefined ? `%${escapeLike(f.search)}%` : undefined,
  };
}
