import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log: who changed what in an account, when, from where. Append-only by the database's own rule, not
 * only by having no route that changes it: an UPDATE is refused, and so is a DELETE of an entry younger than its
 * 365 days (the retention sweep's DELETE, AUDIT_RETENTION_DAYS, is the only one that passes). Names of changed fields only, never values.
 *
 * source_id: what the entry was made from (an agent event's id, and the action for the second entry one event
 * can make), so an event delivered again by the bus makes no second entry.
 */
export class AuditEvents1764600000000 implements MigrationInterface {
  name = 'AuditEvents1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway.audit_events (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        action text NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'admin_token', 'system')),
        actor_key_id text,
        target_id text,
        changed_fields text[],
        request_id text,
        client_address text,
        source_id text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((actor_type = 'api_key') = (actor_key_id IS NOT NULL))
      )`);
    await q.query('CREATE INDEX audit_events_account_idx ON gateway.audit_events (account_id, created_at DESC, id DESC)');
    await q.query('CREATE INDEX audit_events_created_idx ON gateway.audit_events (created_at)');
    await q.query(`
      CREATE FUNCTION gateway.audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          RAISE EXCEPTION 'audit events are append-only' USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF OLD.created_at > now() - interval '365 days' THEN
          RAISE EXCEPTION 'audit events are kept for 365 days' USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN OLD;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON gateway.audit_events
        FOR EACH ROW EXECUTE FUNCTION gateway.audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gateway.audit_events');
    await q.query('DROP FUNCTION gateway.audit_events_append_only()');
  }
}
