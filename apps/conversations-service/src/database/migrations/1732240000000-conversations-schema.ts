import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventStoreDdl } from '@voice/service-kit';

/**
 * Event store (one stream per conversation), what we know about agents (fed by
 * their integration events), and the list read model with an index for every
 * filter and sort, each starting with account_id.
 */
export class ConversationsSchema1732240000000 implements MigrationInterface {
  name = 'ConversationsSchema1732240000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of eventStoreDdl('conversations')) await q.query(statement);

    await q.query(`CREATE TABLE conversations.agents (
      agent_id text PRIMARY KEY,
      account_id text NOT NULL,
      name text NOT NULL,
      voice_platform text NOT NULL,
      recording_enabled boolean NOT NULL,
      transcription_enabled boolean NOT NULL,
      status text NOT NULL,
      version integer NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);

    // Byte-order collation on id: the final tie-break must be the same on every server.
    await q.query(`CREATE TABLE conversations.conversations (
      id text COLLATE "C" PRIMARY KEY,
      account_id text NOT NULL,
      agent_id text NOT NULL,
      caller_number text,
      status text NOT NULL,
      start_time timestamptz NOT NULL,
      end_time timestamptz,
      duration integer NOT NULL DEFAULT 0,
      sentiment text,
      sentiment_rank smallint,
      outcome text,
      topics text[] NOT NULL DEFAULT '{}',
      topics_lower text[] NOT NULL DEFAULT '{}',
      has_recording boolean NOT NULL DEFAULT false,
      has_transcript boolean NOT NULL DEFAULT false,
      summary text,
      search_text text NOT NULL DEFAULT '',
      detail jsonb NOT NULL,
      stream_version integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    const t = 'conversations.conversations';
    // Default sort and the date filters (start_time only), tie-broken by id.
    await q.query(`CREATE INDEX conversations_account_start_idx ON ${t} (account_id, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_duration_idx ON ${t} (account_id, duration, start_time, id)`);
    // Sentiment sorts put unknown sentiment last in both directions, so each direction has its index.
    await q.query(`CREATE INDEX conversations_account_sentiment_asc_idx ON ${t} (account_id, sentiment_rank ASC NULLS LAST, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_sentiment_desc_idx ON ${t} (account_id, sentiment_rank DESC NULLS LAST, start_time DESC, id DESC)`);
    await q.query(`CREATE INDEX conversations_account_agent_idx ON ${t} (account_id, agent_id, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_status_idx ON ${t} (account_id, status, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_outcome_idx ON ${t} (account_id, outcome, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_caller_idx ON ${t} (account_id, caller_number, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_recording_idx ON ${t} (account_id, has_recording, start_time, id)`);
    await q.query(`CREATE INDEX conversations_account_transcript_idx ON ${t} (account_id, has_transcript, start_time, id)`);
    await q.query(`CREATE INDEX conversations_search_trgm_idx ON ${t} USING gin (search_text gin_trgm_ops)`);
    await q.query(`CREATE INDEX conversations_topics_idx ON ${t} USING gin (topics_lower)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.conversations');
    await q.query('DROP TABLE IF EXISTS conversations.agents');
    await q.query('DROP TABLE IF EXISTS conversations.checkpoints');
    await q.query('DROP TABLE IF EXISTS conversations.events');
  }
}
