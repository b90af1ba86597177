import type { CallEvent } from '@voice/contracts';
import { openDatabase } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { foldConversation } from '../conversation/conversation.evolve.js';
import { projectConversations } from '../conversation/conversation.store.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../database/conversations-database.js';

export interface RebuildReport {
  projection: 'conversations';
  streams: number;
  live_rows: number;
  rebuilt_rows: number;
  /** Conversations with events but no live row. */
  missing: number;
  /** Live rows without events. */
  extra: number;
  /** Rows present in both that differ in any column. */
  different: number;
  /** Whether the side tables (account_totals, conversation_topics, conversation_search) agree with the rows. */
  totals_identical: boolean;
  /** A few ids of each kind of difference, for a look. */
  examples: string[];
  identical: boolean;
  swapped: boolean;
}

const CHUNK = 500;

/**
 * Rebuild the list read model from the event store beside the live one, in one
 * snapshot, and compare them row by row (every column, timestamps included: a
 * row's created_at/updated_at are the write times of its first/last events). With
 * `swap`, ingestion is paused by a table lock and the live rows are replaced.
 */
export interface RebuildOptions {
  swap?: boolean;
  /** Called after each chunk of streams is re-folded: streams done so far, and how many there are. */
  onProgress?: (done: number, total: number) => void;
}

export async function rebuildConversationsProjection(options: ({ databaseUrl: string } | { dataSource: DataSource }) & RebuildOptions): Promise<RebuildReport> {
  const dataSource = 'dataSource' in options
    ? options.dataSource
    : await openDatabase({ url: options.databaseUrl, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 2, applicationName: 'rebuild-projection' });
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    // Taken before the first read, so the snapshot cannot miss a concurrent ingest.
    if (options.swap) await runner.query('LOCK TABLE conversations.conversations, conversations.account_totals, conversations.conversation_topics, conversations.conversation_search IN SHARE ROW EXCLUSIVE MODE');
    await runner.query(`CREATE TEMP TABLE rebuilt (LIKE conversations.conversations INCLUDING DEFAULTS) ON COMMIT DROP`);
    await runner.query(`ALTER TABLE rebuilt ADD PRIMARY KEY (account_id, id)`);
    const streams = await refold(runner, options.onProgress);
    await runner.query(
      `UPDATE rebuilt r SET created_at = t.first_at, updated_at = t.last_at
         FROM (SELECT account_id, stream_id, min(created_at) AS first_at, max(created_at) AS last_at FROM conversations.events GROUP BY account_id, stream_id) t
        WHERE t.account_id = r.account_id AND t.stream_id = r.id`,
    );
    const [diff] = await runner.query(
      `SELECT count(*) FILTER (WHERE l.id IS NULL)::int AS missing,
              count(*) FILTER (WHERE r.id IS NULL)::int AS extra,
              count(*) FILTER (WHERE l.id IS NOT NULL AND r.id IS NOT NULL)::int AS different,
              (array_agg(coalesce(l.id, r.id) ORDER BY coalesce(l.id, r.id)))[1:10] AS examples
         FROM conversations.conversations l FULL JOIN rebuilt r ON r.account_id = l.account_id AND r.id = l.id
        WHERE l IS DISTINCT FROM r`,
    );
    const [{ live_rows, rebuilt_rows }] = await runner.query(
      `SELECT (SELECT count(*) FROM conversations.conversations)::int AS live_rows, (SELECT count(*) FROM rebuilt)::int AS rebuilt_rows`,
    );
    const [{ totals_identical }] = await runner.query(
      `SELECT NOT EXISTS (
         SELECT 1 FROM conversations.account_totals t FULL JOIN (SELECT account_id, count(*) AS n FROM conversations.conversations GROUP BY account_id) c USING (account_id)
          WHERE coalesce(t.conversations, 0) <> coalesce(c.n, 0))
       AND NOT EXISTS (
         (SELECT account_id, topic, conversation_id FROM conversations.conversation_topics
          EXCEPT SELECT DISTINCT c.account_id, t, c.id FROM conversations.conversations c, unnest(c.topics_lower) AS t)
         UNION ALL
         (SELECT DISTINCT c.account_id, t, c.id FROM conversations.conversations c, unnest(c.topics_lower) AS t
          EXCEPT SELECT account_id, topic, conversation_id FROM conversations.conversation_topics))
       AND NOT EXISTS (
         (SELECT id, account_id, search_text FROM conversations.conversation_search EXCEPT SELECT id, account_id, search_text FROM conversations.conversations)
         UNION ALL
         (SELECT id, account_id, search_text FROM conversations.conversations EXCEPT SELECT id, account_id, search_text FROM conversations.conversation_search)) AS totals_identical`,
    );
    const identical = diff.missing + diff.extra + diff.different === 0 && totals_identical;
    let swapped = false;
    if (options.swap && !identical) {
      await runner.query('DELETE FROM conversations.conversations');
      await runner.query('INSERT INTO conversations.conversations SELECT * FROM rebuilt');
      await runner.query('DELETE FROM conversations.account_totals');
      await runner.query(`INSERT INTO conversations.account_totals (account_id, conversations)
                          SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
      await runner.query('DELETE FROM conversations.conversation_search');
      await runner.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text)
                          SELECT id, account_id, search_text FROM conversations.conversations`);
      await runner.query('DELETE FROM conversations.conversation_topics');
      await runner.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id)
                          SELECT DISTINCT c.account_id, t, c.id FROM conversations.conversations c, unnest(c.topics_lower) AS t`);
      swapped = true;
    }
    await runner.query('COMMIT');
    return {
      projection: 'conversations', streams, live_rows, rebuilt_rows, missing: diff.missing, extra: diff.extra, different: diff.different,
      totals_identical, examples: diff.examples ?? [], identical, swapped,
    };
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
    if (!('dataSource' in options)) await dataSource.destroy();
  }
}

/**
 * Fold every stream into `rebuilt`, a chunk of streams at a time. A stream is (account_id, stream_id); its
 * platform is the one kept with its first stored event, as the live projection does.
 */
async function refold(runner: QueryRunner, onProgress?: (done: number, total: number) => void): Promise<number> {
  let after: [string, string] = ['', ''];
  let streams = 0;
  const [{ total }] = onProgress
    ? await runner.query('SELECT count(*)::int AS total FROM (SELECT DISTINCT account_id, stream_id FROM conversations.events) s')
    : [{ total: 0 }];
  onProgress?.(0, total);
  for (;;) {
    const chunk: Array<{ account_id: string; stream_id: string; events: CallEvent[]; version: number; voice_platform: string | null }> = await runner.query(
      `SELECT e.account_id, e.stream_id, array_agg(e.data ORDER BY e.stream_version) AS events, max(e.stream_version)::int AS version,
              (array_agg(e.metadata->>'voice_platform' ORDER BY e.stream_version))[1] AS voice_platform
         FROM conversations.events e
        WHERE (e.account_id, e.stream_id) IN (
                SELECT DISTINCT account_id, stream_id FROM conversations.events
                 WHERE (account_id, stream_id) > ($1, $2) ORDER BY account_id, stream_id LIMIT ${CHUNK})
        GROUP BY e.account_id, e.stream_id ORDER BY e.account_id, e.stream_id`,
      after,
    );
    if (chunk.length === 0) return streams;
    const folded = chunk.flatMap((stream) => {
      const state = foldConversation(stream.events);
      return state ? [{ state, accountId: stream.account_id, streamVersion: stream.version, voicePlatform: stream.voice_platform }] : [];
    });
    await projectConversations(runner, folded, null, 'rebuilt');
    streams += chunk.length;
    onProgress?.(streams, total);
    const last = chunk[chunk.length - 1];
    after = [last.account_id, last.stream_id];
  }
}
