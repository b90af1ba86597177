import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live streams open on every gateway replica (GET /v1/conversations/stream), so the per-key and per-account
 * limits hold across replicas. Each row is a lease its gateway renews while the stream is open and deletes when
 * it closes; a gateway that died leaves rows that expire. UNLOGGED: a crash forgets open streams, which the
 * restart closed anyway.
 */
export class ConversationStreams1764500000000 implements MigrationInterface {
  name = 'ConversationStreams1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNLOGGED TABLE gateway.conversation_streams (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      api_key_id text NOT NULL,
      opened_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX conversation_streams_account_idx ON gateway.conversation_streams (account_id, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS gateway.conversation_streams`);
  }
}
