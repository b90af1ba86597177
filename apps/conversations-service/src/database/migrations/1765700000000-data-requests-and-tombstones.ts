import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Requests about one caller's data, and what erasure leaves behind.
 * - data_requests: an erasure or access request and its progress, worked on in bounded batches by whichever
 *   replica holds its lease (claimed with SKIP LOCKED; a lease that runs out is taken over, so a request survives
 *   the death of the process working on it). The caller's number is kept only while the request runs.
 * - erased_conversations: tombstones (account, conversation id, reason, time — nothing personal): recording refuses
 *   every later event of an erased conversation, however it arrives.
 * - erasure_notices: the outbox of CONVERSATIONS_ERASED, written in the erasing transaction.
 * - access_exports: an access request's document, one row per conversation, deleted 24 hours after it is ready.
 */
export class DataRequestsAndTombstones1765700000000 implements MigrationInterface {
  name = 'DataRequestsAndTombstones1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.data_requests (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      type text NOT NULL CHECK (type IN ('erasure', 'access')),
      caller_number text,
      caller_number_masked text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
      conversations_found integer NOT NULL DEFAULT 0,
      conversations_done integer NOT NULL DEFAULT 0,
      export_cursor text COLLATE "C",
      failure text,
      claimed_by text,
      claimed_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      download_expires_at timestamptz
    )`);
    await q.query('CREATE INDEX data_requests_account_idx ON conversations.data_requests (account_id, created_at DESC, id DESC)');
    await q.query(`CREATE INDEX data_requests_open_idx ON conversations.data_requests (created_at) WHERE status IN ('pending', 'running')`);
    await q.query('CREATE INDEX data_requests_download_idx ON conversations.data_requests (download_expires_at) WHERE download_expires_at IS NOT NULL');

    await q.query(`CREATE TABLE conversations.erased_conversations (
      account_id text NOT NULL,
      conversation_id text NOT NULL,
      reason text NOT NULL,
      erased_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, conversation_id)
    )`);

    await q.query(`CREATE TABLE conversations.erasure_notices (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      account_id text NOT NULL,
      conversation_ids text[] NOT NULL,
      reason text NOT NULL,
      erased_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX erasure_notices_transaction_order_idx ON conversations.erasure_notices (transaction_id, global_position)');

    await q.query(`CREATE TABLE conversations.access_exports (
      request_id text NOT NULL REFERENCES conversations.data_requests (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      conversation_id text COLLATE "C" NOT NULL,
      document jsonb NOT NULL,
      PRIMARY KEY (request_id, conversation_id)
    )`);
    await q.query('CREATE INDEX access_exports_conversation_idx ON conversations.access_exports (account_id, conversation_id)');
    // Erasure finds a stream's events by (account_id, stream_id); the unique key leads with them already.
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.access_exports');
    await q.query('DROP TABLE IF EXISTS conversations.erasure_notices');
    await q.query('DROP TABLE IF EXISTS conversations.erased_conversations');
    await q.query('DROP TABLE IF EXISTS conversations.data_requests');
  }
}
