import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from './notifications-database.js';

/** The move of delivery attempts into their delivery's row, on a schema holding data (real PostgreSQL). */
describe('migration: attempts in the delivery row', () => {
  let db: TestDatabase;
  const open: DataSource[] = [];
  const openWith = async (migrations: typeof notificationsMigrations) => {
    const dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations });
    open.push(dataSource);
    return dataSource;
  };

  beforeAll(async () => {
    db = await createTestDatabase('notifattemptsrow');
  });
  afterAll(async () => {
    for (const dataSource of open) await dataSource.destroy();
    await db?.drop();
  });

  it('keeps every attempt, in the order made, and gives them back to a table when undone', async () => {
    const before = await openWith(notificationsMigrations.slice(0, -1));
    await before.query(`INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at)
      VALUES ('we_1', 'acct_1', 'https://hooks.example.com/', true, 's', 'h', now(), now())`);
    for (const id of ['evt_1', 'evt_2']) {
      await before.query(`INSERT INTO notifications.events (id, account_id, type, source_key, body, created_at) VALUES ($1, 'acct_1', 'agent.created', $1, '{}', now())`, [id]);
      await before.query(`INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, attempts, created_at, updated_at)
        VALUES ($1, 'acct_1', 'we_1', $2, 'pending', 2, now(), now())`, [`dlv_${id}`, id]);
    }
    // Inserted out of order: the log is ordered by when each attempt was made.
    await before.query(`INSERT INTO notifications.delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms, response_body) VALUES
      ('dlv_evt_1', '2026-03-01T10:00:05.250Z', 503, NULL, 12, 'busy'),
      ('dlv_evt_1', '2026-03-01T10:00:00.000Z', NULL, 'timeout: no answer within 15000 ms', 15000, NULL)`);

    const after = await openWith(notificationsMigrations);
    const logs = await after.query('SELECT id, attempt_log FROM notifications.deliveries ORDER BY id');
    expect(logs).toEqual([
      {
        id: 'dlv_evt_1',
        attempt_log: [
          { attempted_at: '2026-03-01T10:00:00.000Z', status_code: null, error: 'timeout: no answer within 15000 ms', duration_ms: 15000, response_body: null },
          { attempted_at: '2026-03-01T10:00:05.250Z', status_code: 503, error: null, duration_ms: 12, response_body: 'busy' },
        ],
      },
      { id: 'dlv_evt_2', attempt_log: [] },
    ]);
    expect(await after.query(`SELECT to_regclass('notifications.delivery_attempts') AS t`)).toEqual([{ t: null }]);

    await after.undoLastMigration();
    const restored = await after.query(
      `SELECT delivery_id, attempted_at, status_code, error, duration_ms, response_body FROM notifications.delivery_attempts ORDER BY attempted_at`,
    );
    expect(restored).toEqual([
      { delivery_id: 'dlv_evt_1', attempted_at: new Date('2026-03-01T10:00:00.000Z'), status_code: null, error: 'timeout: no answer within 15000 ms', duration_ms: 15000, response_body: null },
      { delivery_id: 'dlv_evt_1', attempted_at: new Date('2026-03-01T10:00:05.250Z'), status_code: 503, error: null, duration_ms: 12, response_body: 'busy' },
    ]);
    expect(await after.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'notifications' AND column_name = 'attempt_log'`)).toEqual([{ n: 0 }]);
  });
});
