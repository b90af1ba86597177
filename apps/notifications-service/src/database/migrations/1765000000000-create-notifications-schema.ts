import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints (secret sealed by the SecretBox, bound to `<endpoint_id>/secret`), the account's events
 * (recorded once per source change: `source_key` is unique), one delivery per (endpoint, event) and every
 * attempt of it. A delivery is leased (`lease_token`, `lease_until`) by the worker attempting it, so two
 * replicas never attempt it at once; a lease that outlives its holder expires and the delivery is due again.
 */
export class CreateNotificationsSchema1765000000000 implements MigrationInterface {
  name = 'CreateNotificationsSchema1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE notifications.endpoints (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        url text NOT NULL,
        description text,
        event_types text[],
        agent_ids text[],
        enabled boolean NOT NULL,
        disabled_reason text,
        secret_sealed text NOT NULL,
        secret_hint text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX endpoints_account ON notifications.endpoints (account_id, created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE notifications.events (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        type text NOT NULL,
        source_key text NOT NULL UNIQUE,
        agent_id text,
        conversation_id text,
        body text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX events_account ON notifications.events (account_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX events_conversation ON notifications.events (conversation_id, type) WHERE conversation_id IS NOT NULL');
    await q.query(`
      CREATE TABLE notifications.deliveries (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        endpoint_id text NOT NULL REFERENCES notifications.endpoints (id) ON DELETE CASCADE,
        event_id text NOT NULL REFERENCES notifications.events (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_token text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT deliveries_endpoint_event UNIQUE (endpoint_id, event_id)
      )`);
    await q.query(`CREATE INDEX deliveries_due ON notifications.deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query('CREATE INDEX deliveries_endpoint ON notifications.deliveries (endpoint_id, created_at DESC)');
    await q.query(`
      CREATE TABLE notifications.delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES notifications.deliveries (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL,
        status_code integer,
        error text,
        duration_ms integer NOT NULL,
        response_body text
      )`);
    await q.query('CREATE INDEX delivery_attempts_delivery ON notifications.delivery_attempts (delivery_id, attempted_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE notifications.delivery_attempts');
    await q.query('DROP TABLE notifications.deliveries');
    await q.query('DROP TABLE notifications.events');
    await q.query('DROP TABLE notifications.endpoints');
  }
}
