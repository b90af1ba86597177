/**
 * The stats' SQL: aggregate queries over the list's read model (conversations.conversations and
 * conversation_topics), with the list's own WHERE (buildListSql: the account id always first), all read
 * in one snapshot so every figure describes the same set.
 */
import { CONVERSATION_STATUSES, MAX_TOP_TOPICS, SENTIMENTS, type StatsBucket, type StatusCounts } from '@voice/contracts';
import type { DataSource, QueryRunner } from 'typeorm';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import { buildListSql, inSnapshot, type ListSql } from '../list-conversations/list-conversations.store.js';
import { durationFigures, histogramOf, rollUpHours, slotOf } from './conversation-stats.rules.js';

export interface StatsSummary {
  total: number;
  by_status: StatusCounts;
  by_sentiment: { positive: number; neutral: number; negative: number };
  duration: { avg: number | null; p50: number | null; p90: number | null };
  cost_total: number;
  first_start: Date | null;
  last_start: Date | null;
  outcomes: Array<{ outcome: string; count: number }>;
  topics: Array<{ topic: string; count: number }>;
  /** Histogram bucket index (durationBucket) → conversations. */
  histogram: Map<number, number>;
}

export type TimelineRow = { slot: number } & StatusCounts;

/** Which buckets the timeline counts, decided from the figures (it may refuse the range by throwing). */
export type StatsTimeline = (summary: StatsSummary) => { bucket: StatsBucket; first: number; last: number } | undefined;
export interface StatsRead {
  summary: StatsSummary;
  timeline: TimelineRow[];
}

/** Status and sentiment names are the contract's constants, never input: safe to write into the SQL. */
const countsBy = (column: string, values: readonly string[]) =>
  values.map((v) => `count(*) FILTER (WHERE c.${column} = '${v}')::bigint AS "${column}_${v}"`).join(',\n            ');

/** Reads every figure, then asks `timeline` which buckets to count (it may refuse the range), in one snapshot. */
export async function readStats(
  dataSource: DataSource,
  accountId: string,
  f: ConversationListFilter,
  timeline: StatsTimeline,
): Promise<StatsRead> {
  const sql = buildListSql(accountId, f);
  return inSnapshot(dataSource, async (runner) => {
    const { summary, hours } = await readFigures(runner, sql);
    const range = timeline(summary);
    return { summary, timeline: range ? rollUpHours(range.bucket, hours) : [] };
  });
}

/** Which grouping set a row of the one-pass statement belongs to (GROUPING(outcome, duration, hour)'s bits). */
const GROUPED = { all: 0b111, outcome: 0b011, duration: 0b101, hour: 0b110 } as const;

/**
 * Every figure but the topics in one pass over the filtered rows (date_bin, not extract(epoch …), whose
 * numeric arithmetic costs more than the scan): PostgreSQL hashes the four grouping sets
 * — everything, per outcome, per duration (the average, percentiles and histogram are derived from these
 * counts), per UTC hour (the timeline, summed into days when the range needs days) — as it reads each row
 * once. The topics come from conversation_topics.
 */
async function readFigures(db: QueryRunner, sql: ListSql): Promise<{ summary: StatsSummary; hours: TimelineRow[] }> {
  const rows: Array<Record<string, unknown>> = await db.query(
    `SELECT GROUPING(c.outcome, c.duration, c.hour)::int AS grouped, c.outcome, c.duration, c.hour,
            count(*)::bigint AS total,
            ${countsBy('status', CONVERSATION_STATUSES)},
            ${countsBy('sentiment', SENTIMENTS)},
            coalesce(sum(c.cost_amount), 0)::text AS cost_total,
            min(c.start_time) AS first_start, max(c.start_time) AS last_start
       FROM (SELECT c.outcome, c.duration, c.status, c.sentiment, c.cost_amount, c.start_time,
                    date_bin('1 hour', c.start_time, timestamptz '1970-01-01 00:00:00+00') AS hour
               FROM conversations.conversations c WHERE ${sql.where}) c
      GROUP BY GROUPING SETS ((), (c.outcome), (c.duration), (c.hour))`,
    sql.params,
  );
  const topics: Array<{ topic: string; count: string }> = await db.query(
    `SELECT t.topic, count(*)::bigint AS count
       FROM conversations.conversations c
       JOIN conversations.conversation_topics t ON t.account_id = $1 AND t.conversation_id = c.id
      WHERE ${sql.where}
      GROUP BY t.topic ORDER BY count DESC, t.topic COLLATE "C" LIMIT ${MAX_TOP_TOPICS}`,
    sql.params,
  );
  const n = (value: unknown) => Number(value ?? 0);
  const statusCounts = (row: Record<string, unknown>) => Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, n(row[`status_${s}`])])) as StatusCounts;
  const all = rows.find((r) => r.grouped === GROUPED.all)!;
  const durations = rows.filter((r) => r.grouped === GROUPED.duration).map((r) => ({ duration: n(r.duration), count: n(r.total) }));
  const outcomes = rows
    .filter((r) => r.grouped === GROUPED.outcome && r.outcome !== null)
    .map((r) => ({ outcome: r.outcome as string, count: n(r.total) }))
    // Most frequent first, ties by name in byte order (as COLLATE "C").
    .sort((a, b) => b.count - a.count || (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0));
  return {
    summary: {
      total: n(all.total),
      by_status: statusCounts(all),
      by_sentiment: { positive: n(all.sentiment_positive), neutral: n(all.sentiment_neutral), negative: n(all.sentiment_negative) },
      duration: durationFigures(durations),
      cost_total: n(all.cost_total),
      first_start: all.first_start as Date | null,
      last_start: all.last_start as Date | null,
      outcomes,
      topics: topics.map((r) => ({ topic: r.topic, count: n(r.count) })),
      histogram: histogramOf(durations),
    },
    hours: rows.filter((r) => r.grouped === GROUPED.hour).map((r) => ({ slot: slotOf('hour', (r.hour as Date).getTime()), ...statusCounts(r) })),
  };
}
