/**
 * The list's SQL: the WHERE and ORDER BY built from a parsed filter, and the page
 * and total queries over the read model.
 */
import type { ConversationListItem } from '@voice/contracts';
import type { DataSource, QueryRunner } from 'typeorm';
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

/** A list row as read. */
export interface ListRow {
  id: string;
  agent_id: string;
  agent_name: string | null;
  caller_number: string | null;
  status: ConversationListItem['status'];
  start_time: Date;
  end_time: Date | null;
  duration: number;
  sentiment: ConversationListItem['sentiment'];
  outcome: string | null;
  topics: string[];
  has_recording: boolean;
  has_transcript: boolean;
  summary: string | null;
  created_at: Date;
}

export interface ConversationPage {
  rows: ListRow[];
  total: number;
}

/**
 * One page of the filter's matches and their total, straight from the read model
 * (no cache, so an acknowledged event shows at once). The page's ids are found
 * first on the narrow indexes and only those rows are read in full; agent_name is
 * joined now so a rename shows immediately.
 */
export async function readConversationPage(
  dataSource: DataSource,
  accountId: string,
  f: ConversationListFilter,
  /** Offsets from which the total is read first and the page from the nearer end. */
  deepPageOffset: number,
): Promise<ConversationPage> {
  const sql = buildListSql(accountId, f);
  const offset = (f.page - 1) * f.per_page;
  // Shallow pages: page and total in parallel. Deeper: see below.
  if (offset < deepPageOffset) {
    const [rows, total] = await Promise.all([readPage(dataSource, sql, sql.orderBy, f.per_page, offset), countMatches(dataSource, sql, accountId)]);
    return { rows, total };
  }
  // Deep pages: OFFSET costs what it skips, so read from whichever end is nearer.
  // That needs the total first, and both reads in one snapshot to agree.
  return inSnapshot(dataSource, async (runner) => {
    const total = await countMatches(runner, sql, accountId);
    if (offset >= total) return { rows: [], total };
    const limit = Math.min(f.per_page, total - offset);
    const rows = offset > total / 2
      ? await readPage(runner, sql, sql.reverseOrderBy, limit, total - offset - limit)
      : await readPage(runner, sql, sql.orderBy, limit, offset);
    return { rows, total };
  });
}

function readPage(db: DataSource | QueryRunner, sql: ListSql, innerOrder: string, limit: number, offset: number): Promise<ListRow[]> {
  const at = sql.params.length + 1;
  return db.query(
    `SELECT c.id, c.agent_id, a.name AS agent_name, c.caller_number, c.status, c.start_time, c.end_time, c.duration,
            c.sentiment, c.outcome, c.topics, c.has_recording, c.has_transcript, c.summary, c.created_at
       FROM (SELECT c.id FROM conversations.conversations c WHERE ${sql.where} ORDER BY ${innerOrder}
              LIMIT $${at} OFFSET $${at + 1}) page
       JOIN conversations.conversations c ON c.account_id = $1 AND c.id = page.id
       LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id
      ORDER BY ${sql.orderBy}`,
    [...sql.params, limit, offset],
  );
}

/** Exact total; the unfiltered one is kept per account by the projection. */
async function countMatches(db: DataSource | QueryRunner, sql: ListSql, accountId: string): Promise<number> {
  if (sql.topicOnly !== undefined) {
    const [{ total }] = await db.query(
      `SELECT count(*)::bigint AS total FROM conversations.conversation_topics WHERE account_id = $1 AND topic = $2`,
      [accountId, sql.topicOnly],
    );
    return Number(total);
  }
  if (sql.searchOnly !== undefined) {
    const [{ total }] = await db.query(
      `SELECT count(*)::bigint AS total FROM conversations.conversation_search WHERE account_id = $1 AND search_text LIKE $2 ESCAPE '\\'`,
      [accountId, sql.searchOnly],
    );
    return Number(total);
  }
  if (sql.unfiltered) {
    const [row] = await db.query(`SELECT conversations FROM conversations.account_totals WHERE account_id = $1`, [accountId]);
    return Number(row?.conversations ?? 0);
  }
  const [{ total }] = await db.query(`SELECT count(*)::bigint AS total FROM conversations.conversations c WHERE ${sql.where}`, sql.params);
  return Number(total);
}

async function inSnapshot<T>(dataSource: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const value = await work(runner);
    await runner.query('COMMIT');
    return value;
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
