import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { EventsRetention } from './events-retention.js';

describe('events are kept 30 days (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('notifretention');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('deletes the events older than 30 days with their deliveries and attempts, and keeps the rest', async () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const day = 24 * 60 * 60 * 1000;
    await dataSource.query(`INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at)
      VALUES ('we_1', 'acct_1', 'http://127.0.0.1:9/', true, 's', 'h', now(), now())`);
    for (const [id, ageDays] of [['evt_old', 31], ['evt_edge', 29], ['evt_new', 1]] as const) {
      const at = new Date(now.getTime() - ageDays * day);
      await dataSource.query(`INSERT INTO notifications.events (id, account_id, type, source_key, body, created_at) VALUES ($1, 'acct_1', 'agent.created', $1, '{}', $2)`, [id, at]);
      await dataSource.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, attempt_log, created_at, updated_at)
         VALUES ($1, 'acct_1', 'we_1', $2, 'failed', jsonb_build_array(jsonb_build_object('attempted_at', $3::text, 'error', 'timeout', 'duration_ms', 15000)), $3::timestamptz, $3::timestamptz)`,
        [`dlv_${id}`, id, at.toISOString()],
      );
    }
    expect(await new EventsRetention(dataSource, console).sweep(now)).toBe(1);
    expect((await dataSource.query('SELECT id FROM notifications.events ORDER BY id')).map((r: { id: string }) => r.id)).toEqual(['evt_edge', 'evt_new']);
    expect((await dataSource.query('SELECT count(*)::int AS n FROM notifications.deliveries'))[0].n).toBe(2);
    expect((await dataSource.query('SELECT sum(jsonb_array_length(attempt_log))::int AS n FROM notifications.deliveries'))[0].n).toBe(2);
  });
});
