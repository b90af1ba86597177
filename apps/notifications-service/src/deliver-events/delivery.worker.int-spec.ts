import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, openDatabase, SecretBox } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import { randomBytes } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { secretContext } from '../webhook-endpoints/webhook-endpoints.settings.js';
import { DeliveriesStore } from './deliveries.store.js';
import { DeliveryWorker } from './delivery.worker.js';
import { startLoopbackReceiver, until } from '../testing/loopback-receiver.js';
import { WebhookSender } from './webhook-sender.js';

describe('the delivery worker: slots freed by the answer, settlements in batches, leases held until they commit (real PostgreSQL, receivers on loopback)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: DeliveriesStore;
  const secretBox = new SecretBox({ current: randomBytes(32) });
  const logger = createLogger('notifications-service');
  let seq = 0;
  const next = (prefix: string) => `${prefix}_${String(++seq).padStart(24, '0')}`;

  /** An endpoint at `url` with `due` deliveries due now; their ids and their events' ids (each request's webhook-id). */
  const endpointWith = async (url: string, due: number) => {
    const endpointId = next('we');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await dataSource.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at)
       VALUES ($1, 'acct_worker', $2, true, $3, 'hint', now(), now())`,
      [endpointId, url, secretBox.seal(secret, secretContext(endpointId))],
    );
    const deliveries: Array<{ id: string; eventId: string }> = [];
    for (let i = 0; i < due; i++) {
      const delivery = { id: next('dlv'), eventId: next('evt') };
      await dataSource.query(
        `INSERT INTO notifications.events (id, account_id, type, source_key, body, created_at) VALUES ($1, 'acct_worker', 'agent.created', $1, '{}', now())`,
        [delivery.eventId],
      );
      await dataSource.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, created_at, updated_at)
         VALUES ($1, 'acct_worker', $2, $3, 'pending', now() - interval '1 second', now(), now())`,
        [delivery.id, endpointId, delivery.eventId],
      );
      deliveries.push(delivery);
    }
    return { endpointId, deliveries };
  };
  const rowsOf = async (ids: string[]): Promise<Array<{ id: string; status: string; attempts: number; lease_token: string | null }>> =>
    dataSource.query('SELECT id, status, attempts, lease_token FROM notifications.deliveries WHERE id = ANY($1) ORDER BY id', [ids]);
  const workerWith = (concurrency: number, perEndpointConcurrency: number) =>
    new DeliveryWorker(store, new WebhookSender({ allowPrivate: true }), secretBox, { concurrency, perEndpointConcurrency, pollIntervalMs: 20, retryScheduleMs: [0, 60_000] }, logger);

  beforeAll(async () => {
    db = await createTestDatabase('notifworker');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
    store = new DeliveriesStore(dataSource, { disableAfterFailedDeliveries: 1_000, firstDelayMs: 0 });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('a POST frees its slot when answered, while its delivery stays leased, never claimed again, until its settlement commits', async () => {
    // The first delivery's row is locked as its POST is answered: its settlement waits for the lock.
    let holder: QueryRunner | undefined;
    let firstId: string | undefined;
    const receiver = await startLoopbackReceiver(async (webhookId) => {
      if (holder) return;
      holder = dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      [{ id: firstId }] = await holder.query('SELECT id FROM notifications.deliveries WHERE event_id = $1 FOR UPDATE', [webhookId]);
    });
    const { deliveries } = await endpointWith(receiver.url, 3);
    // One slot: the next two POSTs can only be made if the first freed it before its settlement committed.
    const worker = workerWith(1, 16);
    worker.start();
    try {
      await until('all three POSTs', () => receiver.received.length >= 3);
      const first = (await rowsOf([firstId!]))[0];
      expect(first).toMatchObject({ status: 'pending', attempts: 0 });
      expect(first.lease_token).not.toBeNull();
      expect((await store.claim(10, 16, 'another-worker', 30_000)).map((d) => d.id)).not.toContain(firstId);

      await holder!.commitTransaction();
      await until('every settlement', async () => (await rowsOf(deliveries.map((d) => d.id))).every((row) => row.status === 'succeeded'));
      expect((await rowsOf(deliveries.map((d) => d.id))).map((row) => [row.status, row.attempts, row.lease_token])).toEqual(deliveries.map(() => ['succeeded', 1, null]));
      expect([...receiver.received].sort()).toEqual(deliveries.map((d) => d.eventId).sort());
      expect(receiver.mostInFlight()).toBe(1);
    } finally {
      if (holder?.isTransactionActive) await holder.rollbackTransaction();
      await holder?.release();
      await worker.stop();
      await receiver.close();
    }
  });

  it('a backlog goes out several per claim up to the endpoint’s cap and never past it, each delivery attempted once, beside another endpoint', async () => {
    const slow = await startLoopbackReceiver(() => new Promise((resolve) => setTimeout(resolve, 40)));
    const quick = await startLoopbackReceiver(async () => undefined);
    const busy = await endpointWith(slow.url, 24);
    const other = await endpointWith(quick.url, 6);
    const worker = workerWith(16, 3);
    worker.start();
    try {
      const all = [...busy.deliveries, ...other.deliveries].map((d) => d.id);
      await until('every delivery settled', async () => (await rowsOf(all)).every((row) => row.status === 'succeeded'), 20_000);
      expect((await rowsOf(all)).every((row) => row.attempts === 1)).toBe(true);
      expect([...slow.received].sort()).toEqual(busy.deliveries.map((d) => d.eventId).sort());
      expect([...quick.received].sort()).toEqual(other.deliveries.map((d) => d.eventId).sort());
      // The cap is what bounds the slow endpoint: reached, never passed.
      expect(slow.mostInFlight()).toBe(3);
    } finally {
      await worker.stop();
      await slow.close();
      await quick.close();
    }
  });
});
