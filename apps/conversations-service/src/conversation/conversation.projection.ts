import type { QueryRunner } from 'typeorm';
import { effectiveStartTime, type ConversationState } from './conversation.evolve.js';
import { searchTextOf, sentimentRank } from './conversation.views.js';

/**
 * Upsert the list read model row of a folded conversation, inside the append's
 * transaction. The folded state is kept whole in `detail`; the other columns
 * exist for filtering, sorting and search. Resolves true when the row is new.
 */
export async function projectConversation(
  runner: QueryRunner,
  /** `at`: the time of this write (the row's created_at when new, its updated_at); now() when absent. */
  input: { state: ConversationState; accountId: string; streamVersion: number; at?: string },
  /** Another table of the same shape (a rebuild writes beside the live one). */
  table = 'conversations.conversations',
): Promise<boolean> {
  const { state, accountId, streamVersion, at } = input;
  const rows: Array<{ inserted: boolean }> = await runner.query(
    `INSERT INTO ${table} AS live (
       id, account_id, agent_id, caller_number, status, start_time, end_time, duration, sentiment, sentiment_rank,
       outcome, topics, topics_lower, has_recording, has_transcript, summary, search_text, detail, stream_version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text[], $13::text[], $14, $15, $16, $17, $18::jsonb, $19,
             coalesce($20::timestamptz, now()), coalesce($20::timestamptz, now()))
     ON CONFLICT (id) DO UPDATE SET
       agent_id = EXCLUDED.agent_id, caller_number = EXCLUDED.caller_number, status = EXCLUDED.status,
       start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, duration = EXCLUDED.duration,
       sentiment = EXCLUDED.sentiment, sentiment_rank = EXCLUDED.sentiment_rank, outcome = EXCLUDED.outcome,
       topics = EXCLUDED.topics, topics_lower = EXCLUDED.topics_lower, has_recording = EXCLUDED.has_recording,
       has_transcript = EXCLUDED.has_transcript, summary = EXCLUDED.summary, search_text = EXCLUDED.search_text,
       detail = EXCLUDED.detail, stream_version = EXCLUDED.stream_version, updated_at = EXCLUDED.updated_at
     WHERE live.stream_version < EXCLUDED.stream_version
     RETURNING (xmax = 0) AS inserted`,
    [
      state.id, accountId, state.agent_id, state.caller_number, state.status, effectiveStartTime(state), state.end_time,
      state.duration, state.sentiment, sentimentRank(state.sentiment), state.outcome, state.topics,
      state.topics.map((t) => t.toLowerCase()), state.recording_url !== null, state.transcript.length > 0, state.summary,
      searchTextOf(state), JSON.stringify(state), streamVersion, at ?? null,
    ],
  );
  const written = rows.length > 0;
  // The topics and search side tables follow the row (only the live read model has them; a rebuild compares rows).
  if (written && table === 'conversations.conversations') {
    await runner.query(
      `INSERT INTO conversations.conversation_search AS s (id, account_id, search_text) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET search_text = EXCLUDED.search_text WHERE s.search_text IS DISTINCT FROM EXCLUDED.search_text`,
      [state.id, accountId, searchTextOf(state)],
    );
    await runner.query(`DELETE FROM conversations.conversation_topics WHERE conversation_id = $1`, [state.id]);
    const topics = [...new Set(state.topics.map((t) => t.toLowerCase()))];
    if (topics.length > 0) {
      await runner.query(
        `INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id) SELECT $1, t, $2 FROM unnest($3::text[]) AS t`,
        [accountId, state.id, topics],
      );
    }
  }
  return rows[0]?.inserted === true;
}

/** Add new conversations to the accounts' totals; called last in the transaction so the row lock is held briefly. */
export async function addToAccountTotals(runner: QueryRunner, added: ReadonlyMap<string, number>): Promise<void> {
  for (const [accountId, count] of [...added].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (count === 0) continue;
    await runner.query(
      `INSERT INTO conversations.account_totals AS t (account_id, conversations) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET conversations = t.conversations + EXCLUDED.conversations`,
      [accountId, count],
    );
  }
}
