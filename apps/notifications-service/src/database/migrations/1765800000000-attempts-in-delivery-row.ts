import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An attempt as stored in its delivery's `attempt_log`: attempted_at as ISO 8601 UTC text, as the API shows it. */
const ATTEMPT_AS_JSON = `jsonb_build_object(
  'attempted_at', to_char(a.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'status_code', a.status_code, 'error', a.error,
  'duration_ms', a.duration_ms, 'response_body', a.response_body)`;

/**
 * A delivery's attempts live in its own row (`attempt_log`, a JSON array in the order made) rather than a table
 * of their own. Settling an attempt was an update of the delivery and an insert of the attempt with its two index
 * entries and a foreign-key lock on the delivery (9 WAL records per delivery in the outbound bench); it is now the
 * update alone. A delivery has a bounded number of attempts (the schedule's, and the resends someone asks for), each
 * at most 1 KiB of answer, and they are only ever read with their delivery; they go with it when it is deleted.
 *
 * Rolling deploys: a replica still on the previous version fails to settle once the table is gone; its leases
 * expire and the deliveries are attempted again by the new version (at least once holds), and the attempts it made
 * meanwhile are not in the log. Stop the old replicas first to keep them.
 */
export class AttemptsInDeliveryRow1765800000000 implements MigrationInterface {
  name = 'AttemptsInDeliveryRow1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE notifications.deliveries ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`
      UPDATE notifications.deliveries d SET attempt_log = l.log
        FROM (SELECT a.delivery_id, jsonb_agg(${ATTEMPT_AS_JSON} ORDER BY a.attempted_at, a.id) AS log
                FROM notifications.delivery_attempts a GROUP BY a.delivery_id) l
       WHERE l.delivery_id = d.id`);
    await q.query('DROP TABLE notifications.delivery_attempts');
  }

  async down(q: QueryRunner): Promise<void> {
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
    await q.query(`
      INSERT INTO notifications.delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms, response_body)
      SELECT d.id, (a.value->>'attempted_at')::timestamptz, (a.value->>'status_code')::int, a.value->>'error', (a.value->>'duration_ms')::int, a.value->>'response_body'
        FROM notifications.deliveries d CROSS JOIN LATERAL jsonb_array_elements(d.attempt_log) WITH ORDINALITY AS a(value, n)
       ORDER BY d.id, a.n`);
    await q.query('ALTER TABLE notifications.deliveries DROP COLUMN attempt_log');
  }
}
