/**
 * The rebuild's SQL: one REPEATABLE READ snapshot in which the event store is
 * re-folded into a temporary table beside the live read model, the two are
 * compared, and (when asked) the live rows and their side tables are replaced.
 */
import type { CallEvent } from '@voice/contracts';
import type { QueryRunner } from 'typeorm';
import { FACET_COUNTS_SQL } from '../conversation/conversation-counts.js';

/** The temporary table the rebuild writes into; it has the live table's shape and is dropped at commit. */
export const REBUILT_TABLE = 'rebuilt';

/** One stream's stored events, in stream order. */
export interface StoredStream {
  account_id: string;
  stream_id: string;
  events: CallEvent[];
  version: number;
  /** The platform kept with the stream's first stored event. */
  voice_platform: string | null;
}

/** How the live rows differ from the rebuilt ones. */
export interface RowDifferences {
  /** Rebuilt rows with no live row. */
  missing: number;
  /** Live rows with no rebuilt row. */
  extra: number;
  /** Rows present in both that differ in any column. */
  different: number;
  /** Up to ten ids of differing rows, in id order; null when none differ. */
  examples: string[] | null;
}

export interface RowCounts {
  live_rows: number;
  rebuilt_rows: number;
}

/** Everything the rebuild reads and writes happens in this one snapshot. */
export async function beginRebuildSnapshot(runner: QueryRunner): Promise<void> {
  await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
}

export async function commitRebuild(runner: QueryRunner): Promise<void> {
  await runner.query('COMMIT');
}

export async function rollBackRebuild(runner: QueryRunner): Promise<void> {
  await runner.query('ROLLBACK');
}

/**
 * Pause ingestion into the read model and its side tables until the transaction ends. Reads stay
 * possible; a second rebuild with a swap waits for this one.
 */
export async function lockReadModel(runner: QueryRunner): Promise<void> {
  await runner.query('LOCK TABLE conversations.conversations, conversations.account_totals, conversations.conversation_topics, conversations.conversation_search, conversations.conversation_counts IN SHARE ROW EXCLUSIVE MODE');
}

/** Create the empty rebuilt table, keyed like the live one so the projection's upsert applies to it. */
export async function createRebuiltTable(runner: QueryRunner): Promise<void> {
  await runner.query(`CREATE TEMP TABLE ${REBUILT_TABLE} (LIKE conversations.conversations INCLUDING DEFAULTS) ON COMMIT DROP`);
  await runner.query(`ALTER TABLE ${REBUILT_TABLE} ADD PRIMARY KEY (account_id, id)`);
}

/** How many streams, (account_id, stream_id) pairs, the event store holds. */
export async function countStreams(runner: QueryRunner): Promise<number> {
  const [{ total }] = await runner.query('SELECT count(*)::int AS total FROM (SELECT DISTINCT account_id, stream_id FROM conversations.events) s');
  return total;
}

/** The next `limit` streams after the stream `after` (in (account_id, stream_id) order), each with all its events. */
export async function readStreamsAfter(runner: QueryRunner, after: readonly [string, string], limit: number): Promise<StoredStream[]> {
  return runner.query(
    `SELECT e.account_id, e.stream_id, array_agg(e.data ORDER BY e.stream_version) AS events, max(e.stream_version)::int AS version,
            (array_agg(e.metadata->>'voice_platform' ORDER BY e.stream_version))[1] AS voice_platform
       FROM conversations.events e
      WHERE (e.account_id, e.stream_id) IN (
              SELECT DISTINCT account_id, stream_id FROM conversations.events
               WHERE (account_id, stream_id) > ($1, $2) ORDER BY account_id, stream_id LIMIT ${limit})
      GROUP BY e.account_id, e.stream_id ORDER BY e.account_id, e.stream_id`,
    [...after],
  );
}

/** Set each rebuilt row's created_at/updated_at to the write times of its stream's first and last events. */
export async function stampRebuiltWriteTimes(runner: QueryRunner): Promise<void> {
  await runner.query(
    `UPDATE ${REBUILT_TABLE} r SET created_at = t.first_at, updated_at = t.last_at
       FROM (SELECT account_id, stream_id, min(created_at) AS first_at, max(created_at) AS last_at FROM conversations.events GROUP BY account_id, stream_id) t
      WHERE t.account_id = r.account_id AND t.stream_id = r.id`,
  );
}

/**
 * Compare the live rows with the rebuilt ones, every column included but changed_xid (which transaction last wrote a
 * row is bookkeeping for readers catching up, not part of the projection: a rebuilt row is always newer).
 */
export async function compareLiveWithRebuilt(runner: QueryRunner): Promise<RowDifferences> {
  const [diff] = await runner.query(
    `SELECT count(*) FILTER (WHERE l.id IS NULL)::int AS missing,
            count(*) FILTER (WHERE r.id IS NULL)::int AS extra,
            count(*) FILTER (WHERE l.id IS NOT NULL AND r.id IS NOT NULL)::int AS different,
            (array_agg(coalesce(l.id, r.id) ORDER BY coalesce(l.id, r.id)))[1:10] AS examples
       FROM conversations.conversations l FULL JOIN ${REBUILT_TABLE} r ON r.account_id = l.account_id AND r.id = l.id
      WHERE to_jsonb(l) - 'changed_xid' IS DISTINCT FROM to_jsonb(r) - 'changed_xid'`,
  );
  return diff;
}

export async function countLiveAndRebuiltRows(runner: QueryRunner): Promise<RowCounts> {
  const [counts] = await runner.query(
    `SELECT (SELECT count(*) FROM conversations.conversations)::int AS live_rows, (SELECT count(*) FROM ${REBUILT_TABLE})::int AS rebuilt_rows`,
  );
  return counts;
}

/** Whether account_totals, conversation_counts, conversation_topics and conversation_search say exactly what the live rows say. */
export async function sideTablesMatchLiveRows(runner: QueryRunner): Promise<boolean> {
  const [{ totals_identical }] = await runner.query(
    `SELECT NOT EXISTS (
       SELECT 1 FROM conversations.account_totals t FULL JOIN (SELECT account_id, count(*) AS n FROM conversations.conversations GROUP BY account_id) c USING (account_id)
        WHERE coalesce(t.conversations, 0) <> coalesce(c.n, 0))
     AND NOT EXISTS (
       (SELECT account_id, topic, conversation_id, start_time, status, agent_id FROM conversations.conversation_topics
        EXCEPT SELECT DISTINCT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) AS t)
       UNION ALL
       (SELECT DISTINCT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) AS t
        EXCEPT SELECT account_id, topic, conversation_id, start_time, status, agent_id FROM conversations.conversation_topics))
     AND NOT EXISTS (
       (SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversation_search
        EXCEPT SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations)
       UNION ALL
       (SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations
        EXCEPT SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversation_search))
     AND NOT EXISTS (
       SELECT 1 FROM (SELECT * FROM conversations.conversation_counts WHERE conversations <> 0) kept FULL JOIN (${FACET_COUNTS_SQL}) derived USING (account_id, facet, value)
        WHERE kept.conversations IS DISTINCT FROM derived.conversations) AS totals_identical`,
  );
  return totals_identical;
}

/**
 * Replace the live rows with the rebuilt ones, then derive each side table afresh from the new rows
 * (the rebuilt table has no side tables of its own). Must run inside the caller's transaction.
 */
export async function replaceLiveWithRebuilt(runner: QueryRunner): Promise<void> {
  // The same conversations at the versions already announced: nothing new for the outbox (see its trigger).
  await runner.query(`SELECT set_config('conversations.replacing_read_model', 'on', true)`);
  await runner.query('DELETE FROM conversations.conversations');
  await runner.query(`INSERT INTO conversations.conversations SELECT * FROM ${REBUILT_TABLE}`);
  await runner.query('DELETE FROM conversations.account_totals');
  await runner.query(`INSERT INTO conversations.account_totals (account_id, conversations)
                      SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
  await runner.query('DELETE FROM conversations.conversation_search');
  await runner.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
                      SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations`);
  await runner.query('DELETE FROM conversations.conversation_counts');
  await runner.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations) ${FACET_COUNTS_SQL}`);
  await runner.query('DELETE FROM conversations.conversation_topics');
  await runner.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
                      SELECT DISTINCT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) AS t`);
}
