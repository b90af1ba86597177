/**
 * conversation_counts: how many conversations of an account have each value of the columns a list is most often
 * filtered on alone (and an agent or a topic with a status), how many lasted each number of seconds, and how many
 * started on each UTC day (in all, per status, per has_recording, per topic and per topic with a status) and in
 * each UTC hour. The projection keeps it in its transaction (subtracting what a row was, adding what it becomes);
 * the rebuild derives it afresh with FACET_COUNTS_SQL.
 *
 * The durations, days and hours answer what grows with an account's size: the total of a duration range (a sum
 * over the distinct durations, a few thousand at most), of a date range (its whole days' counts plus an exact count
 * of its partial days) and the position of a deep page (the day it starts in, for an unfiltered list the hour, then
 * an OFFSET within it) — a few hundred counter rows where counting or skipping read every match.
 */

/** The columns of a read-model row the counts are kept by. */
export interface CountedColumns {
  account_id: string;
  agent_id: string;
  status: string;
  sentiment: string | null;
  outcome: string | null;
  has_recording: boolean;
  has_transcript: boolean;
  topics_lower: readonly string[];
  /** The UTC hour the conversation started (`YYYY-MM-DD HH`), as PostgreSQL computes it from the stored start_time (startHourSql). */
  start_hour: string;
  /** Seconds, as stored. */
  duration: number;
}

/**
 * The facets counted per UTC day of start: every conversation, per status, per has_recording, per topic and per
 * topic with a status (no status contains ':', so `day:status:<s>:topic:<t>` reads one way only).
 */
export type DayFacet = 'day' | `day:status:${string}` | `day:has_recording:${'true' | 'false'}` | `day:topic:${string}` | `day:status:${string}:topic:${string}`;

export type Facet = 'status' | 'agent_id' | 'status:agent_id' | 'sentiment' | 'outcome' | 'has_recording' | 'has_transcript' | 'topic' | 'status:topic' | 'duration' | `hour:${string}` | DayFacet;

/**
 * A stored start_time's UTC day as `YYYY-MM-DD` (four-digit years: string order is day order). Computed by
 * PostgreSQL from the stored value, never from the instant the projection sent: the stored one is rounded to
 * microseconds, which can carry 23:59:59.9999996 into the next day.
 */
export function startDaySql(alias: string): string {
  return `to_char(${alias}.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
}

/** A stored start_time's UTC hour as `YYYY-MM-DD HH` (its first ten characters are the day), as startDaySql. */
export function startHourSql(alias: string): string {
  return `to_char(${alias}.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24')`;
}

/** The (facet, value) pairs a conversation is counted under; a null column counts under none. */
export function facetsOf(row: CountedColumns): Array<[Facet, string]> {
  const day = row.start_hour.slice(0, 10);
  const facets: Array<[Facet, string | null]> = [
    ['status', row.status],
    ['agent_id', row.agent_id],
    // No status contains ':', so the pair is unambiguous.
    ['status:agent_id', `${row.status}:${row.agent_id}`],
    ['sentiment', row.sentiment],
    ['outcome', row.outcome],
    ['has_recording', String(row.has_recording)],
    ['has_transcript', String(row.has_transcript)],
    ...[...new Set(row.topics_lower)].flatMap((t): Array<[Facet, string]> => [
      ['topic', t], ['status:topic', `${row.status}:${t}`], [`day:topic:${t}`, day], [`day:status:${row.status}:topic:${t}`, day],
    ]),
    ['duration', String(row.duration)],
    ['day', day],
    // Per day, the hour as the value: one day's hours are read by the facet alone.
    [`hour:${day}`, row.start_hour.slice(11, 13)],
    [`day:status:${row.status}`, day],
    [`day:has_recording:${row.has_recording}`, day],
  ];
  return facets.filter((f): f is [Facet, string] => f[1] !== null);
}

/** One counter's change, keyed by account, facet and value. */
export interface CountChange {
  account_id: string;
  facet: Facet;
  value: string;
  delta: number;
}

/**
 * What writing each row changes in the counts: `before` is the row as it was (undefined for a new
 * conversation), `after` as written (undefined for an erased one). Changes that cancel out are left out; sorted by key, so two
 * transactions lock the counters they share in the same order.
 */
export function countChanges(writes: ReadonlyArray<{ before: CountedColumns | undefined; after: CountedColumns | undefined }>): CountChange[] {
  const changes = new Map<string, CountChange>();
  const add = (row: CountedColumns, delta: number) => {
    for (const [facet, value] of facetsOf(row)) {
      const key = JSON.stringify([row.account_id, facet, value]);
      const change = changes.get(key) ?? { account_id: row.account_id, facet, value, delta: 0 };
      change.delta += delta;
      changes.set(key, change);
    }
  };
  for (const { before, after } of writes) {
    if (before) add(before, -1);
    if (after) add(after, 1);
  }
  const byKey = (a: CountChange, b: CountChange) =>
    a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1
      : a.facet < b.facet ? -1 : a.facet > b.facet ? 1
        : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  return [...changes.values()].filter((c) => c.delta !== 0).sort(byKey);
}

/** Every conversation's (account_id, facet, value), derived from the rows: the counts are this, grouped. */
export const FACET_ROWS_SQL = `
  SELECT c.account_id, f.facet, f.value
    FROM conversations.conversations c
   CROSS JOIN LATERAL (VALUES ('status', c.status), ('agent_id', c.agent_id), ('status:agent_id', c.status || ':' || c.agent_id),
                              ('sentiment', c.sentiment), ('outcome', c.outcome),
                              ('has_recording', c.has_recording::text), ('has_transcript', c.has_transcript::text),
                              ('duration', c.duration::text), ('day', ${startDaySql('c')}), ('hour:' || ${startDaySql('c')}, to_char(c.start_time AT TIME ZONE 'UTC', 'HH24')), ('day:status:' || c.status, ${startDaySql('c')}),
                              ('day:has_recording:' || c.has_recording::text, ${startDaySql('c')})) AS f(facet, value)
   WHERE f.value IS NOT NULL
  UNION ALL
  SELECT d.account_id, f.facet, f.value
    FROM (SELECT DISTINCT c.account_id, c.id, c.status, ${startDaySql('c')} AS day, t AS topic FROM conversations.conversations c, unnest(c.topics_lower) AS t) d
   CROSS JOIN LATERAL (VALUES ('topic', d.topic), ('status:topic', d.status || ':' || d.topic), ('day:topic:' || d.topic, d.day),
                              ('day:status:' || d.status || ':topic:' || d.topic, d.day)) AS f(facet, value)`;

/** The counts as the rows say they are. */
export const FACET_COUNTS_SQL = `SELECT account_id, facet, value, count(*)::bigint AS conversations FROM (${FACET_ROWS_SQL}) facets GROUP BY account_id, facet, value`;
