import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox of DATA_REQUEST_EVENTS: a request's settlement (completed or failed) is written in the transaction that
 * settles it and relayed after the commit, so the audit log hears of every one exactly as it happened.
 */
export class DataRequestEvents1765720000000 implements MigrationInterface {
  name = 'DataRequestEvents1765720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.data_request_events (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      account_id text NOT NULL,
      request_id text NOT NULL,
      request_type text NOT NULL,
      status text NOT NULL,
      conversations_done integer NOT NULL,
      settled_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX data_request_events_transaction_order_idx ON conversations.data_request_events (transaction_id, global_position)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.data_request_events');
  }
}
