import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbound webhook log: every verified delivery with its raw body (pruned after the retention
 * period), and per-integration counts of refused ones (never their bodies).
 */
export class WebhookDeliveries1764200000000 implements MigrationInterface {
  name = 'WebhookDeliveries1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway.webhook_deliveries (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        integration_id text NOT NULL,
        platform text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        outcome text NOT NULL,
        reason text,
        event_type text,
        platform_call_id text,
        platform_agent_id text,
        conversation_id text,
        event_ids text[] NOT NULL DEFAULT '{}',
        -- sha256 of the mapped call events: an accepted delivery's twin is a duplicate.
        fingerprint text,
        body bytea NOT NULL,
        replay_of text,
        last_replay jsonb
      )`);
    await q.query('CREATE INDEX webhook_deliveries_account_idx ON gateway.webhook_deliveries (account_id, received_at DESC, id DESC)');
    await q.query(`CREATE INDEX webhook_deliveries_accepted_idx ON gateway.webhook_deliveries (account_id, fingerprint) WHERE outcome = 'accepted'`);
    await q.query('CREATE INDEX webhook_deliveries_conversation_idx ON gateway.webhook_deliveries (account_id, conversation_id) WHERE conversation_id IS NOT NULL');
    await q.query('CREATE INDEX webhook_deliveries_received_idx ON gateway.webhook_deliveries (received_at)');
    await q.query(`
      CREATE TABLE gateway.webhook_rejections (
        integration_id text NOT NULL,
        account_id text NOT NULL,
        minute timestamptz NOT NULL,
        reason text NOT NULL,
        count integer NOT NULL,
        last_at timestamptz NOT NULL,
        PRIMARY KEY (integration_id, minute, reason)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gateway.webhook_rejections, gateway.webhook_deliveries');
  }
}
