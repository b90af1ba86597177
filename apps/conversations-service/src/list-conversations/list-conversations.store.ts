/**
 * The list's SQL: the WHERE and ORDER BY built from a parsed filter, and the page
 * and total queries over the read model.
 */
import type { ConversationListItem } from '@voice/contracts';
import type { DataSource, QueryRunner } from 'typeorm';
import type { DayFacet, Facet } from '../conversation/conversation-counts.js';
import { filterPredicates, withinPeriodOrBeyond } from '../conversation-filters/conversation-filters.js';
import { FILTER_PARAMETERS, type ConversationListFilter } from './list-conversations.params.js';
import { dayFacetOf, locateInPeriods, type PeriodCount, type PeriodPosition } from './page-by-day.js';

export interface ListSql {
  where: string;
  params: unknown[];
  orderBy: string;
  /** The exact inverse order (a backward scan of the same index), for reading deep pages from the far end. */
  reverseOrderBy: string;
  /** True when only the account scopes the list (its total is kept in account_totals). */
  unfiltered: boolean;
  /**
   * Set when a topic or a search selects and every other filter is on a column its side table carries:
   * the total is counted there alone, and a start_time page is read there alone.
   */
  narrow?: NarrowSource;
  /** Set when the filter is one the projection keeps a count of (conversation_counts): the total is that one row. */
  counted?: { facet: Facet; value: string };
  /** The work_mem its count and one-pass reads need beyond the server's default (see countWorkMem), if any. */
  workMem?: string;
  /** The facet of conversation_counts counting this filter's conversations per day of their start (dayFacetOf), if any. */
  dayFacet?: DayFacet;
  /** The filter's date range (its instants), when it has one: its total is then summed from the day counts. */
  range?: { from: string | null; to: string | null };
  /** True when the list is in start-time order: a deep page is then found by the day counts (without a range). */
  startTimeOrder: boolean;
  /** Set when the filter is a duration range alone (durationRangeOf): its total is summed from the kept duration counts. */
  durations?: DurationRange;
  /** The conversations the page's ids are read from (alias c), when not the whole table (page-by-keys.ts). */
  from?: string;
}

/** Seconds, both bounds inclusive; null for an open end. */
export interface DurationRange {
  min: number | null;
  max: number | null;
}

/**
 * A substring search's candidates come from a trigram bitmap ANDed with the other filters' indexes. Past work_mem
 * (4 MB by default) the bitmap keeps pages instead of rows and every row of those pages is read and rechecked: at
 * ten million conversations a search with an agent rechecked 3.5 million rows, 6.1 s, where 32 MB kept it exact,
 * 0.45 s. An exact bitmap costs ~64 bytes per heap page, so 64 MB holds about a million pages; it is a ceiling,
 * allocated only as the bitmap grows.
 */
export const SEARCH_WORK_MEM = '64MB';

/** The work_mem a list's count (and one-pass read) runs with: raised for a substring search, the default otherwise. */
export function countWorkMem(f: Pick<ConversationListFilter, 'search'>): string | undefined {
  return f.search === undefined ? undefined : SEARCH_WORK_MEM;
}

/** A topic or search list read from its narrow side table (alias d), which carries the conversation's start_time, status and agent_id. */
export interface NarrowSource {
  from: string;
  where: string;
  /** The side table's column holding the conversation id. */
  id: string;
  /** The list's order on the side table's copy of the sort key; null unless the list is sorted by start_time. */
  orderBy: string | null;
  reverseOrderBy: string | null;
  /**
   * True for a search: finding its matches (a trigram recheck of every candidate) is the whole cost, so a deep
   * page and its total are read from one pass over them rather than two.
   */
  onePass: boolean;
}

/** The conversation columns the topic and search side tables carry (kept with the row by the projection). */
const NARROW_COLUMNS: ReadonlySet<string> = new Set(['start_time', 'status', 'agent_id']);

/**
 * WHERE and ORDER BY of the list query. Every predicate matches an index that
 * starts with account_id; every order ends with start_time and id so pages
 * never overlap or skip.
 */
export function buildListSql(accountId: string, f: ConversationListFilter, alias = 'c'): ListSql {
  const params: unknown[] = [accountId];
  const predicates = filterPredicates(f, params);
  const topic = predicates.find((p) => p.parameter === 'topic');
  const search = predicates.find((p) => p.parameter === 'search');
  const where = [`${alias}.account_id = $1`, ...predicates.map((p) => p.sql(alias))];

  const order = (ascending: boolean, nullsLast: boolean) => {
    const dir = ascending ? 'ASC' : 'DESC';
    const tail = `${alias}.start_time ${dir}, ${alias}.id ${dir}`;
    return f.sort_by === 'duration' ? `${alias}.duration ${dir}, ${tail}`
      : f.sort_by === 'sentiment' ? `${alias}.sentiment_rank ${dir} NULLS ${nullsLast ? 'LAST' : 'FIRST'}, ${tail}`
      : tail;
  };
  const ascending = f.sort_order === 'asc';

  let narrow: NarrowSource | undefined;
  const others = predicates.filter((p) => p !== topic && p !== search);
  if ((topic === undefined) !== (search === undefined) && others.every((p) => NARROW_COLUMNS.has(p.column))) {
    const id = topic ? 'd.conversation_id' : 'd.id';
    const narrowOrder = (asc: boolean) => (f.sort_by === 'start_time' ? `d.start_time ${asc ? 'ASC' : 'DESC'}, ${id} ${asc ? 'ASC' : 'DESC'}` : null);
    narrow = {
      from: topic ? 'conversations.conversation_topics d' : 'conversations.conversation_search d',
      where: ['d.account_id = $1', (topic ?? search)!.onOwnTable('d'), ...others.map((p) => p.sql('d'))].join(' AND '),
      id,
      orderBy: narrowOrder(ascending),
      reverseOrderBy: narrowOrder(!ascending),
      onePass: !topic,
    };
  }
  return {
    where: where.join(' AND '),
    params,
    counted: countedFacet(f),
    workMem: countWorkMem(f),
    orderBy: order(ascending, true),
    reverseOrderBy: order(!ascending, false),
    unfiltered: where.length === 1,
    narrow,
    dayFacet: dayFacetOf(f),
    range: f.start_date !== undefined || f.end_date !== undefined ? { from: f.start_date ?? null, to: f.end_date ?? null } : undefined,
    startTimeOrder: f.sort_by === 'start_time',
    durations: durationRangeOf(f),
  };
}

/** The duration range of a filter on min_duration and/or max_duration alone (the kept duration counts answer its total). */
export function durationRangeOf(f: ConversationListFilter): DurationRange | undefined {
  const given = FILTER_PARAMETERS.filter((name) => f[name] !== undefined);
  if (given.length === 0 || !given.every((name) => name === 'min_duration' || name === 'max_duration')) return undefined;
  return { min: f.min_duration ?? null, max: f.max_duration ?? null };
}

/** The kept count that is exactly this filter's total, if any: one counted filter alone, or an agent or a topic with a status. */
export function countedFacet(f: ConversationListFilter): { facet: Facet; value: string } | undefined {
  const given = FILTER_PARAMETERS.filter((name) => f[name] !== undefined);
  if (given.length === 2 && f.agent_id !== undefined && f.status !== undefined) return { facet: 'status:agent_id', value: `${f.status}:${f.agent_id}` };
  if (given.length === 2 && f.topic !== undefined && f.status !== undefined) return { facet: 'status:topic', value: `${f.status}:${f.topic}` };
  if (given.length !== 1) return undefined;
  const [name] = given;
  switch (name) {
    case 'status': case 'agent_id': case 'sentiment': case 'outcome': case 'topic':
      return { facet: name, value: f[name]! };
    case 'has_recording': case 'has_transcript':
      return { facet: name, value: String(f[name]) };
    default:
      return undefined;
  }
}

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
  // Shallow pages: page and total in parallel, on two connections, so each sees its own
  // moment. A write committed between them can make the two disagree (a short page
  // under a larger total, say); such an answer is read again in one snapshot.
  if (offset < deepPageOffset) {
    // A count that needs more work_mem takes it for its own transaction (SET LOCAL), so it runs in one.
    const counting = sql.workMem
      ? inSnapshot(dataSource, async (runner) => {
          await raiseWorkMem(runner, sql.workMem!);
          return countMatches(runner, sql, accountId);
        })
      : countMatches(dataSource, sql, accountId);
    const [rows, total] = await Promise.all([readPage(dataSource, sql, false, f.per_page, offset), counting]);
    if (pageAgreesWithTotal(rows.length, total, offset, f.per_page)) return { rows, total };
  }
  // Deep pages: OFFSET costs what it skips, so read from whichever end is nearer.
  // That needs the total first, and both reads in one snapshot to agree.
  return inSnapshot(dataSource, async (runner) => {
    if (sql.workMem) await raiseWorkMem(runner, sql.workMem);
    if (sql.narrow?.onePass && sql.narrow.orderBy) return readPageAndTotalInOnePass(runner, sql, f.per_page, offset);
    const total = await countMatches(runner, sql, accountId);
    if (offset >= total) return { rows: [], total };
    const limit = Math.min(f.per_page, total - offset);
    const byDay = await readPageByDay(runner, sql, total, limit, offset, f.sort_order === 'desc');
    if (byDay) return { rows: byDay, total };
    const rows = offset > total / 2
      ? await readPage(runner, sql, true, limit, total - offset - limit)
      : await readPage(runner, sql, false, limit, offset);
    return { rows, total };
  });
}

/** Whether a page of `length` rows at `offset` can be the page of a result of `total` rows. */
export function pageAgreesWithTotal(length: number, total: number, offset: number, perPage: number): boolean {
  return length === Math.max(0, Math.min(perPage, total - offset));
}

/**
 * The agent's name of each row of a page, looked up by the agents' primary key row by row (a subplan): a join let
 * the planner hash every account's agents for 25 rows — a sequential scan of 20,020 agents was 17 of the 20 ms of a
 * first page at ten million conversations, and it grows with every account.
 */
const AGENT_NAME = '(SELECT a.name FROM conversations.agents a WHERE a.agent_id = c.agent_id) AS agent_name';

export function readPage(db: DataSource | QueryRunner, sql: ListSql, reverse: boolean, limit: number, offset: number): Promise<ListRow[]> {
  const at = sql.params.length + 1;
  const narrowOrder = reverse ? sql.narrow?.reverseOrderBy : sql.narrow?.orderBy;
  // The page's ids from the narrow side table when it carries the sort key; else from the conversations' own indexes.
  const ids = narrowOrder
    ? `SELECT ${sql.narrow!.id} AS id FROM ${sql.narrow!.from} WHERE ${sql.narrow!.where} ORDER BY ${narrowOrder}`
    : `SELECT c.id FROM ${sql.from ?? 'conversations.conversations c'} WHERE ${sql.where} ORDER BY ${reverse ? sql.reverseOrderBy : sql.orderBy}`;
  return db.query(
    `SELECT c.id, c.agent_id, ${AGENT_NAME}, c.caller_number, c.status, c.start_time, c.end_time, c.duration,
            c.sentiment, c.outcome, c.topics, c.has_recording, c.has_transcript, c.summary, c.created_at
       FROM (${ids}
              LIMIT $${at} OFFSET $${at + 1}) page
       JOIN conversations.conversations c ON c.account_id = $1 AND c.id = page.id
      ORDER BY ${sql.orderBy}`,
    [...sql.params, limit, offset],
  );
}

/**
 * A deep page of a list the day counts cover, in start-time order and without a date range: the day its first row
 * started on is found from the counts (a few hundred rows), for the unfiltered list then the hour within that day
 * (its 24 hour counts), and only that period's earlier matches are skipped — where an OFFSET from either end
 * skipped up to half the account's matches. Undefined when it does not apply, when an OFFSET from the nearer end
 * skips fewer rows, or when the counts do not agree with the total (the caller then skips the plain way).
 */
async function readPageByDay(runner: QueryRunner, sql: ListSql, total: number, limit: number, offset: number, descending: boolean): Promise<ListRow[] | undefined> {
  if (sql.dayFacet === undefined || sql.range !== undefined || !sql.startTimeOrder) return undefined;
  const account = sql.params[0];
  // A facet's counts, each value as the period it counts (`prefix` + value).
  const counts = async (facet: string, prefix = ''): Promise<PeriodCount[]> =>
    ((await runner.query(`SELECT value, conversations FROM conversations.conversation_counts WHERE account_id = $1 AND facet = $2 AND conversations <> 0`,
      [account, facet])) as Array<{ value: string; conversations: string }>).map((r) => ({ period: `${prefix}${r.value}`, conversations: Number(r.conversations) }));
  const days = await counts(sql.dayFacet);
  const inDay = locateInPeriods(days, total, offset, descending);
  // Near either end an OFFSET from that end skips fewer rows than the day's.
  if (!inDay || inDay.skip >= Math.min(offset, total - offset - limit)) return undefined;
  let position: PeriodPosition = inDay;
  let period: 'day' | 'hour' = 'day';
  if (sql.dayFacet === 'day') {
    // The unfiltered list also counts per hour: the skip shrinks to the hour's earlier matches.
    const dayTotal = days.find((d) => d.period === inDay.period)!.conversations;
    const inHour = locateInPeriods(await counts(`hour:${inDay.period}`, `${inDay.period} `), dayTotal, inDay.skip, descending);
    if (inHour) [position, period] = [inHour, 'hour'];
  }
  // From the period's end (descending) or start (ascending): its rows before the page are `skip` of that period's.
  // A topic's page ids come from its side table (readPage), so the bound goes there.
  const at = `$${sql.params.length + 1}`;
  const params = [...sql.params, position.period];
  const bounded: ListSql = sql.narrow?.orderBy
    ? { ...sql, params, narrow: { ...sql.narrow, where: `${sql.narrow.where} AND ${withinPeriodOrBeyond('d', at, descending, period)}` } }
    : { ...sql, params, where: `${sql.where} AND ${withinPeriodOrBeyond('c', at, descending, period)}` };
  return readPage(runner, bounded, false, limit, position.skip);
}

/** A page of a narrow list and its total from the matches found once (kept for the statement, then counted and sorted). */
async function readPageAndTotalInOnePass(runner: QueryRunner, sql: ListSql, limit: number, offset: number): Promise<ConversationPage> {
  const narrow = sql.narrow!;
  const at = sql.params.length + 1;
  const on = (alias: string, order: string) => order.replace(/d\.start_time/, `${alias}.start_time`).replace(narrow.id, `${alias}.id`);
  const [l, o] = [`$${at}::bigint`, `$${at + 1}::bigint`];
  // As in the two-statement read, a page past the middle is read from the far end (the inverse order, a
  // smaller top-N); only the branch the total selects runs (its condition is a one-time filter).
  const rows: Array<ListRow & { total: string }> = await runner.query(
    `WITH m AS MATERIALIZED (SELECT ${narrow.id} AS id, d.start_time FROM ${narrow.from} WHERE ${narrow.where}),
          n AS MATERIALIZED (SELECT count(*)::bigint AS total FROM m),
          page AS (
            (SELECT m.id FROM m WHERE 2 * ${o} <= (SELECT total FROM n) ORDER BY ${on('m', narrow.orderBy!)} LIMIT ${l} OFFSET ${o})
            UNION ALL
            (SELECT m.id FROM m WHERE 2 * ${o} > (SELECT total FROM n) ORDER BY ${on('m', narrow.reverseOrderBy!)}
              LIMIT greatest(0, least(${l}, (SELECT total FROM n) - ${o})) OFFSET greatest(0, (SELECT total FROM n) - ${o} - ${l})))
     SELECT (SELECT total FROM n) AS total, r.*
       FROM (SELECT 1) one LEFT JOIN (
         SELECT c.id, c.agent_id, ${AGENT_NAME}, c.caller_number, c.status, c.start_time, c.end_time, c.duration,
                c.sentiment, c.outcome, c.topics, c.has_recording, c.has_transcript, c.summary, c.created_at
           FROM page JOIN conversations.conversations c ON c.account_id = $1 AND c.id = page.id) r ON true
      ORDER BY ${on('r', narrow.orderBy!)}`,
    [...sql.params, limit, offset],
  );
  return {
    total: Number(rows[0].total),
    rows: rows.filter((r) => r.id !== null).map(({ total: _, ...row }) => row),
  };
}

async function raiseWorkMem(runner: QueryRunner, workMem: string): Promise<void> {
  await runner.query(`SET LOCAL work_mem = '${workMem}'`);
}

/** Exact total; the unfiltered one is kept per account by the projection. */
async function countMatches(db: DataSource | QueryRunner, sql: ListSql, accountId: string): Promise<number> {
  if (sql.counted !== undefined) {
    const [row] = await db.query(
      `SELECT conversations FROM conversations.conversation_counts WHERE account_id = $1 AND facet = $2 AND value = $3`,
      [accountId, sql.counted.facet, sql.counted.value],
    );
    return Number(row?.conversations ?? 0);
  }
  if (sql.narrow !== undefined) {
    const [{ total }] = await db.query(`SELECT count(*)::bigint AS total FROM ${sql.narrow.from} WHERE ${sql.narrow.where}`, sql.params);
    return Number(total);
  }
  if (sql.unfiltered) {
    const [row] = await db.query(`SELECT conversations FROM conversations.account_totals WHERE account_id = $1`, [accountId]);
    return Number(row?.conversations ?? 0);
  }
  if (sql.dayFacet !== undefined && sql.range !== undefined) return countRangeByDay(db, sql);
  if (sql.durations !== undefined) {
    // A sum over the account's distinct durations (a few thousand at most) instead of a count of every match.
    const [{ total }] = await db.query(
      `SELECT coalesce(sum(conversations), 0) AS total FROM conversations.conversation_counts
        WHERE account_id = $1 AND facet = 'duration' AND ($2::int IS NULL OR value::int >= $2) AND ($3::int IS NULL OR value::int <= $3)`,
      [accountId, sql.durations.min, sql.durations.max],
    );
    return Number(total);
  }
  const [{ total }] = await db.query(`SELECT count(*)::bigint AS total FROM conversations.conversations c WHERE ${sql.where}`, sql.params);
  return Number(total);
}

/**
 * The exact total of a date range the day counts cover: the kept counts of the range's whole UTC days, plus the
 * matches of its partial first and last days counted on the rows (at most two days of them). The whole days are
 * worked out by PostgreSQL from the bounds as it stores them (rounded to microseconds): from the first midnight at
 * or after the start to the last midnight at or before the end's next microsecond. When no whole day lies
 * between, the two partial counts cover the range between them.
 */
async function countRangeByDay(db: DataSource | QueryRunner, sql: ListSql): Promise<number> {
  const n = sql.params.length;
  const [{ total }] = await db.query(
    `WITH b AS (SELECT $${n + 2}::timestamptz AS lo, $${n + 3}::timestamptz AS hi),
          w AS (SELECT CASE WHEN lo = date_trunc('day', lo AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' THEN lo
                            ELSE (date_trunc('day', lo AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' END AS first_day,
                       CASE WHEN hi + interval '1 microsecond' = (date_trunc('day', hi AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'
                            THEN hi + interval '1 microsecond'
                            ELSE date_trunc('day', hi AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' END AS past_day
                  FROM b),
          -- The last partial day's count starts where the whole days end (never before the first partial day's end).
          e AS (SELECT first_day, CASE WHEN past_day IS NULL OR first_day IS NULL THEN past_day ELSE greatest(past_day, first_day) END AS last_from FROM w)
     SELECT (SELECT coalesce(sum(k.conversations), 0) FROM conversations.conversation_counts k, w
              WHERE k.account_id = $1 AND k.facet = $${n + 1}
                AND (w.first_day IS NULL OR k.value::date >= (w.first_day AT TIME ZONE 'UTC')::date)
                AND (w.past_day IS NULL OR k.value::date < (w.past_day AT TIME ZONE 'UTC')::date))
          + (SELECT count(*) FROM conversations.conversations c WHERE ${sql.where} AND c.start_time < (SELECT first_day FROM e))
          + (SELECT count(*) FROM conversations.conversations c WHERE ${sql.where} AND c.start_time >= (SELECT last_from FROM e)) AS total`,
    [...sql.params, sql.dayFacet, sql.range!.from, sql.range!.to],
  );
  return Number(total);
}

/** Run `work` on one connection in a read-only REPEATABLE READ transaction: every query sees the same snapshot. */
export async function inSnapshot<T>(dataSource: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
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
