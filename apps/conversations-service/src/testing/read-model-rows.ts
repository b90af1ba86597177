/**
 * Conversations written straight into the read model and its side tables, for tests of the reads (filters, stats,
 * pages) on many random rows: the projection's own path is tested elsewhere and would take seconds per case.
 */
import { sentimentRank } from '@voice/contracts';
import type { DataSource } from 'typeorm';
import { isoOfMicros } from '../conversation/conversation.views.js';

export interface ReadModelRow {
  id: string;
  agent_id: string;
  caller_number: string | null;
  status: string;
  /** Microseconds after the caller's origin (insertReadModelRows' t0Us). */
  start_offset_us: number;
  duration: number;
  sentiment: string | null;
  outcome: string | null;
  topics: string[];
  has_recording: boolean;
  has_transcript: boolean;
  search_text: string;
  cost_micros: number | null;
}

/** The rows of one new account, in the read model, its topic and search side tables and its kept total. */
export async function insertReadModelRows(dataSource: DataSource, account: string, rows: ReadModelRow[], t0Us: number): Promise<void> {
  const records = rows.map((r) => ({
    ...r, account_id: account, start_time: isoOfMicros(t0Us + r.start_offset_us), sentiment_rank: sentimentRank(r.sentiment),
    cost_amount: r.cost_micros === null ? null : (r.cost_micros / 1_000_000).toFixed(6),
  }));
  const from = `json_to_recordset($1::json) AS r(id text, account_id text, agent_id text, caller_number text, status text, start_time timestamptz,
    duration int, sentiment text, sentiment_rank smallint, outcome text, topics text[], has_recording boolean, has_transcript boolean,
    search_text text, cost_amount numeric)`;
  await dataSource.transaction(async (m) => {
    await m.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, caller_number, status, start_time, duration, sentiment, sentiment_rank,
         outcome, topics, topics_lower, has_recording, has_transcript, search_text, cost_amount, detail, stream_version)
       SELECT id, account_id, agent_id, caller_number, status, start_time, duration, sentiment, sentiment_rank,
         outcome, topics, topics, has_recording, has_transcript, search_text, cost_amount, '{}'::jsonb, 1 FROM ${from}`,
      [JSON.stringify(records)],
    );
    await m.query(
      `INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
       SELECT r.account_id, t, r.id, r.start_time, r.status, r.agent_id FROM ${from}, unnest(r.topics) t`,
      [JSON.stringify(records)],
    );
    await m.query(
      `INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
       SELECT id, account_id, search_text, start_time, status, agent_id FROM ${from}`,
      [JSON.stringify(records)],
    );
    await m.query(`INSERT INTO conversations.account_totals (account_id, conversations) VALUES ($1, $2)`, [account, rows.length]);
  });
}
