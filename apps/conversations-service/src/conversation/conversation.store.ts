/**
 * The conversation read model's SQL: the upsert the recording transaction (and a
 * rebuild) writes folded conversations with, and the one-row read behind the
 * detail and transcript queries.
 */
import { sentimentRank } from '@voice/contracts';
import type { DataSource, QueryRunner } from 'typeorm';
import type { ConversationState } from './conversation.evolve.js';
import { effectiveStartTime } from './conversation.evolve.js';
import { searchTextOf, type ProjectedConversation } from './conversation.views.js';
import { countChanges, startHourSql, type CountChange, type CountedColumns } from './conversation-counts.js';

/** What a projection wrote: the rows, and what they change in the counters (for addToCounters). */
export interface Projection {
  written: WrittenConversation[];
  counts: CountChange[];
}

/** A read-model row the projection wrote: created, or updated to a newer stream version. */
export interface WrittenConversation {
  account_id: string;
  id: string;
  created: boolean;
  /** When the row was first written (the list item's created_at). */
  created_at: Date;
}

export interface StoredConversation {
  state: ConversationState;
  agent_name: string | null;
  /** The agent's platform when the conversation's first event was recorded (switching platforms later does not rewrite history). */
  voice_platform: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One conversation of the account, or undefined (also for another account's id: existence is not revealed).
 * Conversation ids are the platforms', unique only within an account. The agent's name is its current one.
 */
export async function readConversation(db: DataSource, accountId: string, conversationId: string): Promise<StoredConversation | undefined> {
  const [row] = await db.query(
    `SELECT c.detail AS state, a.name AS agent_name, c.voice_platform, c.created_at, c.updated_at
       FROM conversations.conversations c LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id
      WHERE c.id = $1 AND c.account_id = $2`,
    [conversationId, accountId],
  );
  return row;
}

/**
 * Upsert the list read model rows of folded conversations, inside the append's
 * transaction, in one statement for the whole batch. The folded state is kept
 * whole in `detail`; the other columns exist for filtering, sorting and search.
 * A row already at the same or a newer stream version is left alone. Resolves
 * the rows it wrote and what they change in the counters, which the caller applies
 * last (addToCounters).
 */
export async function projectConversations(
  runner: QueryRunner,
  conversations: readonly ProjectedConversation[],
  /** The time of this write (the row's created_at when new, its updated_at); now() when null. */
  at: string | null,
  /** Another table of the same shape (a rebuild writes beside the live one). */
  table = 'conversations.conversations',
): Promise<Projection> {
  if (conversations.length === 0) return { written: [], counts: [] };
  const records = conversations.map(({ state, accountId, streamVersion, voicePlatform }) => ({
    id: state.id,
    account_id: accountId,
    agent_id: state.agent_id,
    caller_number: state.caller_number,
    status: state.status,
    start_time: effectiveStartTime(state),
    end_time: state.end_time,
    duration: state.duration,
    sentiment: state.sentiment,
    sentiment_rank: sentimentRank(state.sentiment),
    outcome: state.outcome,
    topics: state.topics,
    topics_lower: state.topics.map((t) => t.toLowerCase()),
    has_recording: state.recording_url !== null,
    has_transcript: state.transcript.length > 0,
    summary: state.summary,
    search_text: searchTextOf(state),
    detail: state,
    stream_version: streamVersion,
    voice_platform: voicePlatform,
    // A JSON number, read as numeric: the amount exactly as reported.
    cost_amount: state.cost?.amount ?? null,
  }));
  const live = table === 'conversations.conversations';
  // The live rows as they were, for the counts, read by the upsert's own statement (every part of it sees the
  // rows as they were before it; the caller holds these conversations' locks, so nothing else changes them).
  const written: Array<{ account_id: string; id: string; inserted: boolean; created_at: Date; start_hour: string; duration: number; before: CountedColumns | null }> = await runner.query(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
              id text, account_id text, agent_id text, caller_number text, status text, start_time timestamptz, end_time timestamptz,
              duration integer, sentiment text, sentiment_rank smallint, outcome text, topics text[], topics_lower text[],
              has_recording boolean, has_transcript boolean, summary text, search_text text, detail jsonb, stream_version integer,
              voice_platform text, cost_amount numeric)
     ), before AS (
       SELECT c.account_id, c.id, c.agent_id, c.status, c.sentiment, c.outcome, c.has_recording, c.has_transcript, c.topics_lower, c.duration,
              ${startHourSql('c')} AS start_hour
         FROM ${table} c JOIN r ON c.account_id = r.account_id AND c.id = r.id
     ), up AS (
       INSERT INTO ${table} AS live (
         id, account_id, agent_id, caller_number, status, start_time, end_time, duration, sentiment, sentiment_rank,
         outcome, topics, topics_lower, has_recording, has_transcript, summary, search_text, detail, stream_version, voice_platform,
         cost_amount, created_at, updated_at)
       SELECT r.id, r.account_id, r.agent_id, r.caller_number, r.status, r.start_time, r.end_time, r.duration, r.sentiment, r.sentiment_rank,
              r.outcome, coalesce(r.topics, '{}'), coalesce(r.topics_lower, '{}'), r.has_recording, r.has_transcript, r.summary, r.search_text,
              r.detail, r.stream_version, r.voice_platform, r.cost_amount, coalesce($2::timestamptz, now()), coalesce($2::timestamptz, now())
         FROM r
        ORDER BY r.account_id, r.id
       ON CONFLICT (account_id, id) DO UPDATE SET
         agent_id = EXCLUDED.agent_id, caller_number = EXCLUDED.caller_number, status = EXCLUDED.status,
         start_time = EXCLUDED.start_time, end_time = EXCLUDED.end_time, duration = EXCLUDED.duration,
         sentiment = EXCLUDED.sentiment, sentiment_rank = EXCLUDED.sentiment_rank, outcome = EXCLUDED.outcome,
         topics = EXCLUDED.topics, topics_lower = EXCLUDED.topics_lower, has_recording = EXCLUDED.has_recording,
         has_transcript = EXCLUDED.has_transcript, summary = EXCLUDED.summary, search_text = EXCLUDED.search_text,
         detail = EXCLUDED.detail, stream_version = EXCLUDED.stream_version, voice_platform = EXCLUDED.voice_platform,
         cost_amount = EXCLUDED.cost_amount, updated_at = EXCLUDED.updated_at
       WHERE live.stream_version < EXCLUDED.stream_version
       RETURNING live.account_id, live.id, live.created_at, ${startHourSql('live')} AS start_hour, live.duration
     )
     -- Inserted is what the row was not before: the conversation's lock, taken before this statement, keeps every other
     -- writer of the row out, so the statement's snapshot is the truth (a partitioned table has no xmax to ask).
     SELECT up.account_id, up.id, b.id IS NULL AS inserted, up.created_at, up.start_hour, up.duration,
            ${live ? 'CASE WHEN b.id IS NULL THEN NULL ELSE to_json(b) END' : 'NULL'} AS before
       FROM up LEFT JOIN before b ON b.account_id = up.account_id AND b.id = up.id`,
    [JSON.stringify(records), at],
  );
  const projected = written.map(({ account_id, id, inserted, created_at }) => ({ account_id, id, created: inserted, created_at }));
  // The topics and search side tables follow the rows (only the live read model has them; a rebuild compares rows).
  if (written.length === 0 || !live) return { written: projected, counts: [] };
  const byKey = new Map(records.map((r) => [rowKey(r.account_id, r.id), r]));
  const rows = written.map((w) => byKey.get(rowKey(w.account_id, w.id))!);
  await runner.query(
    `INSERT INTO conversations.conversation_search AS s (id, account_id, search_text, start_time, status, agent_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[])
     ON CONFLICT (account_id, id) DO UPDATE SET
       search_text = EXCLUDED.search_text, start_time = EXCLUDED.start_time, status = EXCLUDED.status, agent_id = EXCLUDED.agent_id
     WHERE (s.search_text, s.start_time, s.status, s.agent_id) IS DISTINCT FROM (EXCLUDED.search_text, EXCLUDED.start_time, EXCLUDED.status, EXCLUDED.agent_id)`,
    [rows.map((r) => r.id), rows.map((r) => r.account_id), rows.map((r) => r.search_text), rows.map((r) => r.start_time), rows.map((r) => r.status), rows.map((r) => r.agent_id)],
  );
  // A new row has no topics yet; an updated one may have lost some.
  const updated = written.filter((w) => !w.inserted);
  if (updated.length > 0) {
    await runner.query(
      `DELETE FROM conversations.conversation_topics t USING unnest($1::text[], $2::text[]) AS k(account_id, id)
        WHERE t.account_id = k.account_id AND t.conversation_id = k.id`,
      [updated.map((w) => w.account_id), updated.map((w) => w.id)],
    );
  }
  // Each topic row carries its conversation's sort key and status, so a topic list is one narrow index range.
  const topics = rows.flatMap((r) => [...new Set(r.topics_lower)].map((topic) => ({ topic, r })));
  if (topics.length > 0) {
    await runner.query(
      `INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[])`,
      [topics.map((t) => t.r.account_id), topics.map((t) => t.topic), topics.map((t) => t.r.id),
        topics.map((t) => t.r.start_time), topics.map((t) => t.r.status), topics.map((t) => t.r.agent_id)],
    );
  }
  // What the rows' writes change in the counters, applied last (addToCounters) so their locks are held briefly.
  const counts = countChanges(written.map((w) => ({
    before: w.inserted ? undefined : (w.before ?? undefined),
    // The hour and duration as stored (rounded to microseconds and to an integer), as the rebuild will count them.
    after: { ...byKey.get(rowKey(w.account_id, w.id))!, start_hour: w.start_hour, duration: w.duration },
  })));
  return { written: projected, counts };
}

/**
 * Add what a projection changed to the accounts' counters — conversation_counts and each account's total of
 * conversations — in one statement, called last in the transaction so these rows, which every batch of an account
 * updates, stay locked only until the commit. Both in sorted order (the counts first, then the totals), so two
 * batches lock the counters they share in the same order and never deadlock.
 */
export async function addToCounters(runner: QueryRunner, { written, counts }: Projection): Promise<void> {
  const created = new Map<string, number>();
  for (const { account_id } of written.filter((w) => w.created)) created.set(account_id, (created.get(account_id) ?? 0) + 1);
  if (created.size === 0 && counts.length === 0) return;
  const accounts = [...created.keys()].sort();
  await runner.query(
    `WITH counted AS (
       INSERT INTO conversations.conversation_counts AS n (account_id, facet, value, conversations)
       SELECT k.account_id, k.facet, k.value, k.delta
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS k(account_id, facet, value, delta, position)
        ORDER BY k.position
       ON CONFLICT (account_id, facet, value) DO UPDATE SET conversations = n.conversations + EXCLUDED.conversations
       RETURNING 1
     ), totalled AS (
       INSERT INTO conversations.account_totals AS t (account_id, conversations)
       SELECT k.account_id, k.conversations
         FROM unnest($5::text[], $6::bigint[]) WITH ORDINALITY AS k(account_id, conversations, position)
        WHERE (SELECT count(*) FROM counted) >= 0
        ORDER BY k.position
       ON CONFLICT (account_id) DO UPDATE SET conversations = t.conversations + EXCLUDED.conversations
       RETURNING 1
     )
     SELECT count(*) FROM totalled`,
    [counts.map((c) => c.account_id), counts.map((c) => c.facet), counts.map((c) => c.value), counts.map((c) => c.delta), accounts, accounts.map((a) => created.get(a)!)],
  );
}

/** Apply the counts' changes in their (sorted) order, so two transactions lock the counters they share in the same order. */
export async function applyCountChanges(runner: QueryRunner, changes: readonly CountChange[]): Promise<void> {
  if (changes.length === 0) return;
  await runner.query(
    `INSERT INTO conversations.conversation_counts AS n (account_id, facet, value, conversations)
     SELECT k.account_id, k.facet, k.value, k.delta
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS k(account_id, facet, value, delta, position)
      ORDER BY k.position
     ON CONFLICT (account_id, facet, value) DO UPDATE SET conversations = n.conversations + EXCLUDED.conversations`,
    [changes.map((c) => c.account_id), changes.map((c) => c.facet), changes.map((c) => c.value), changes.map((c) => c.delta)],
  );
}

function rowKey(accountId: string, id: string): string {
  return JSON.stringify([accountId, id]);
}
