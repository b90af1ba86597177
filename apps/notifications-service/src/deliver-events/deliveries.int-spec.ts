import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { DeliveriesStore, type LeasedDelivery, type Settlement } from './deliveries.store.js';
import type { DeliveryDecision } from './delivery-schedule.rules.js';

describe('claiming and settling deliveries (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: DeliveriesStore;
  let seq = 0;
  const next = (prefix: string) => `${prefix}_${String(++seq).padStart(24, '0')}`;

  /** An enabled endpoint of the account, with `due` deliveries of as many events due now. */
  const endpointWith = async (accountId: string, due: number, over: { failed_in_a_row?: number } = {}) => {
    const endpointId = next('we');
    await dataSource.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, failed_in_a_row, failing_since, created_at, updated_at)
       VALUES ($1, $2, 'http://127.0.0.1:9/', true, 'sealed', 'hint', $3, CASE WHEN $3 > 0 THEN now() END, now(), now())`,
      [endpointId, accountId, over.failed_in_a_row ?? 0],
    );
    for (let i = 0; i < due; i++) {
      const eventId = next('evt');
      await dataSource.query(
        `INSERT INTO notifications.events (id, account_id, type, source_key, body, created_at) VALUES ($1, $2, 'agent.created', $1, '{}', now())`,
        [eventId, accountId],
      );
      await dataSource.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', now() - interval '1 second', now(), now())`,
        [next('dlv'), accountId, endpointId, eventId],
      );
    }
    return endpointId;
  };
  const settlement = (delivery: LeasedDelivery, decision: DeliveryDecision, statusCode: number | null): Settlement => ({
    delivery,
    attempt: { attempted_at: new Date(), status_code: statusCode, error: statusCode === null ? 'network: refused' : null, duration_ms: 3, response_body: null },
    decision,
  });
  const deliveryRow = async (id: string) =>
    (await dataSource.query('SELECT status, attempts, lease_token, next_attempt_at FROM notifications.deliveries WHERE id = $1', [id]))[0];
  const attemptsOf = async (id: string) =>
    ((await dataSource.query('SELECT attempt_log FROM notifications.deliveries WHERE id = $1', [id]))[0].attempt_log as Array<{ status_code: number | null; error: string | null }>)
      .map(({ status_code, error }) => ({ status_code, error }));

  beforeAll(async () => {
    db = await createTestDatabase('notifdeliver');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
    store = new DeliveriesStore(dataSource, { disableAfterFailedDeliveries: 1, firstDelayMs: 0 });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('attempts ending together settle at once: every attempt stored, every delivery’s new state, a success ends the endpoint’s failure streak', async () => {
    const endpointId = await endpointWith('acct_settle', 3, { failed_in_a_row: 5 });
    const claimed = (await store.claim(10, 10, 'worker-settle', 30_000)).filter((d) => d.endpoint_id === endpointId);
    expect(claimed).toHaveLength(3);
    const [first, second, third] = claimed;
    const before = Date.now();
    await store.settle([
      settlement(first, { status: 'succeeded' }, 204),
      settlement(second, { status: 'pending', delayMs: 5_000 }, 500),
      settlement(third, { status: 'succeeded' }, 200),
    ]);

    expect(await deliveryRow(first.id)).toMatchObject({ status: 'succeeded', attempts: 1, lease_token: null, next_attempt_at: null });
    expect(await deliveryRow(third.id)).toMatchObject({ status: 'succeeded', attempts: 1, lease_token: null });
    const retried = await deliveryRow(second.id);
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, lease_token: null });
    expect(retried.next_attempt_at.getTime() - before).toBeGreaterThanOrEqual(4_000);
    expect([await attemptsOf(first.id), await attemptsOf(second.id)]).toEqual([[{ status_code: 204, error: null }], [{ status_code: 500, error: null }]]);
    const [streak] = await dataSource.query('SELECT failed_in_a_row, failing_since FROM notifications.endpoints WHERE id = $1', [endpointId]);
    expect(streak).toEqual({ failed_in_a_row: 0, failing_since: null });
  });

  it('a settlement whose lease another worker holds now records its attempt and changes nothing else', async () => {
    const endpointId = await endpointWith('acct_lost_lease', 1);
    const [delivery] = (await store.claim(10, 10, 'worker-slow', 30_000)).filter((d) => d.endpoint_id === endpointId);
    await dataSource.query(`UPDATE notifications.deliveries SET lease_token = 'worker-new' WHERE id = $1`, [delivery.id]);
    await store.settle([settlement(delivery, { status: 'succeeded' }, 200)]);
    expect(await deliveryRow(delivery.id)).toMatchObject({ status: 'pending', attempts: 0, lease_token: 'worker-new' });
    expect(await attemptsOf(delivery.id)).toEqual([{ status_code: 200, error: null }]);

    // The same for a last attempt that failed: recorded, and neither the delivery nor the endpoint's streak changes.
    const failingId = await endpointWith('acct_lost_lease_failed', 1);
    const [failed] = (await store.claim(10, 10, 'worker-slow-2', 30_000)).filter((d) => d.endpoint_id === failingId);
    await dataSource.query(`UPDATE notifications.deliveries SET lease_token = 'worker-new-2' WHERE id = $1`, [failed.id]);
    await store.settle([settlement(failed, { status: 'failed' }, null)]);
    expect(await deliveryRow(failed.id)).toMatchObject({ status: 'pending', attempts: 0, lease_token: 'worker-new-2' });
    expect(await attemptsOf(failed.id)).toEqual([{ status_code: null, error: 'network: refused' }]);
    expect(await dataSource.query('SELECT enabled, failed_in_a_row FROM notifications.endpoints WHERE id = $1', [failingId])).toEqual([{ enabled: true, failed_in_a_row: 0 }]);
  });

  it('a delivery failed for good beside a success: the failing endpoint is disabled past the threshold and the account’s other endpoints are told', async () => {
    const failing = await endpointWith('acct_disable', 1);
    const healthy = await endpointWith('acct_disable', 1);
    const claimed = await store.claim(10, 10, 'worker-disable', 30_000);
    const [lost] = claimed.filter((d) => d.endpoint_id === failing);
    const [fine] = claimed.filter((d) => d.endpoint_id === healthy);
    await store.settle([settlement(lost, { status: 'failed' }, null), settlement(fine, { status: 'succeeded' }, 204)]);

    expect([(await deliveryRow(lost.id)).status, (await deliveryRow(fine.id)).status]).toEqual(['failed', 'succeeded']);
    const [endpoint] = await dataSource.query('SELECT enabled, disabled_reason FROM notifications.endpoints WHERE id = $1', [failing]);
    expect(endpoint).toEqual({ enabled: false, disabled_reason: '1 deliveries failed in a row' });
    const told = await dataSource.query(
      `SELECT d.endpoint_id FROM notifications.deliveries d JOIN notifications.events e ON e.id = d.event_id WHERE e.type = 'webhook_endpoint.disabled' AND e.account_id = 'acct_disable'`,
    );
    expect(told).toEqual([{ endpoint_id: healthy }]);
  });

  it('an endpoint gets at most its cap of leases, the oldest due first, beside a backlog of another', async () => {
    const busy = await endpointWith('acct_backlog', 40);
    const quiet = await endpointWith('acct_backlog', 2);
    const claimed = (await store.claim(100, 4, 'worker-backlog', 30_000)).filter((d) => d.endpoint_id === busy || d.endpoint_id === quiet);
    expect([claimed.filter((d) => d.endpoint_id === busy).length, claimed.filter((d) => d.endpoint_id === quiet).length]).toEqual([4, 2]);
    const oldest: Array<{ id: string }> = await dataSource.query(
      `SELECT id FROM notifications.deliveries WHERE endpoint_id = $1 ORDER BY next_attempt_at, id LIMIT 4`,
      [busy],
    );
    expect(claimed.filter((d) => d.endpoint_id === busy).map((d) => d.id).sort()).toEqual(oldest.map((row) => row.id).sort());
    // While those leases hold, no worker gets more of either.
    const later = await store.claim(100, 4, 'worker-backlog-2', 30_000);
    expect(later.filter((d) => d.endpoint_id === busy || d.endpoint_id === quiet)).toEqual([]);
  });
});
