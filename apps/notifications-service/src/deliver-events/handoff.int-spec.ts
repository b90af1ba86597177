import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentIntegrationEvent } from '@voice/contracts';
import { createLogger, openDatabase, SecretBox } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { RecordEventsStore } from '../record-events/record-events.store.js';
import { secretContext } from '../webhook-endpoints/webhook-endpoints.settings.js';
import { DeliveriesStore } from './deliveries.store.js';
import { DeliveryWorker } from './delivery.worker.js';
import { startLoopbackReceiver, until } from '../testing/loopback-receiver.js';
import { WebhookSender } from './webhook-sender.js';

const agentCreated = (id: string, accountId: string): AgentIntegrationEvent => ({
  id, type: 'AgentCreated', version: 1, occurred_at: '2026-01-01T00:00:00.000Z',
  agent: { agent_id: `agt_${id}`, account_id: accountId, name: 'A', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
});

describe('deliveries handed to the worker as they are recorded (real PostgreSQL, receivers on loopback)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let deliveries: DeliveriesStore;
  const secretBox = new SecretBox({ current: randomBytes(32) });
  const logger = createLogger('notifications-service');
  let seq = 0;
  const next = (prefix: string) => `${prefix}_${String(++seq).padStart(24, '0')}`;

  const endpointAt = async (accountId: string, url: string) => {
    const id = next('we');
    await dataSource.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at)
       VALUES ($1, $2, $3, true, $4, 'hint', now(), now())`,
      [id, accountId, url, secretBox.seal(`whsec_${randomBytes(32).toString('base64')}`, secretContext(id))],
    );
    return id;
  };
  /**
   * A worker that never looks for due deliveries by itself (no timer, and an hour between looks): only hand-overs
   * reach it. It holds 8 × its slots and each endpoint's cap (the tests count on it).
   */
  const workerWith = (concurrency: number, perEndpointConcurrency: number, heldBodiesBudgetChars?: number) =>
    new DeliveryWorker(deliveries, new WebhookSender({ allowPrivate: true }), secretBox, {
      concurrency, perEndpointConcurrency, pollIntervalMs: 3_600_000, retryScheduleMs: [0, 60_000], holdPerSlot: 8, heldBodiesBudgetChars,
    }, logger);
  const rowsOf = (endpointId: string): Promise<Array<{ status: string; attempts: number; lease_token: string | null }>> =>
    dataSource.query('SELECT status, attempts, lease_token FROM notifications.deliveries WHERE endpoint_id = $1', [endpointId]);
  const eventIds = async (accountId: string): Promise<string[]> =>
    (await dataSource.query('SELECT id FROM notifications.events WHERE account_id = $1 ORDER BY id', [accountId])).map((row: { id: string }) => row.id);

  beforeAll(async () => {
    db = await createTestDatabase('notifhandoff');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
    deliveries = new DeliveriesStore(dataSource, { disableAfterFailedDeliveries: 1_000, firstDelayMs: 0 });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('a delivery recorded by this process is leased to its worker in the recording and sent at once, with no claim between', async () => {
    const receiver = await startLoopbackReceiver();
    const endpointId = await endpointAt('acct_handoff_1', receiver.url);
    const worker = workerWith(8, 4);
    const recorder = new RecordEventsStore(dataSource, worker);
    try {
      expect(await recorder.recordAgentEvents([agentCreated('h1-a', 'acct_handoff_1'), agentCreated('h1-b', 'acct_handoff_1')], 0)).toBe(2);
      await until('both deliveries settled', async () => (await rowsOf(endpointId)).every((row) => row.status === 'succeeded'));
      expect(await rowsOf(endpointId)).toEqual([{ status: 'succeeded', attempts: 1, lease_token: null }, { status: 'succeeded', attempts: 1, lease_token: null }]);
      expect([...receiver.received].sort()).toEqual(await eventIds('acct_handoff_1'));
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('queued deliveries go out as slots free, each endpoint under its cap and served in turn; what the worker cannot hold waits for a claim', async () => {
    const slow = await startLoopbackReceiver(() => new Promise((resolve) => setTimeout(resolve, 40)));
    const quick = await startLoopbackReceiver();
    const busy = await endpointAt('acct_handoff_2', slow.url);
    const other = await endpointAt('acct_handoff_2', quick.url);
    // 2 per endpoint in flight, 4 slots: the worker holds at most 16 of an endpoint (8 × its cap) and 32 in all.
    const worker = workerWith(4, 2);
    const recorder = new RecordEventsStore(dataSource, worker);
    try {
      const events = Array.from({ length: 20 }, (_, i) => agentCreated(`h2-${i}`, 'acct_handoff_2'));
      expect(await recorder.recordAgentEvents(events, 0)).toBe(20);
      // Each endpoint: 16 leased to the worker in the recording, 4 left unleased for a claim.
      const leasedAtOnce = async (endpointId: string) => (await rowsOf(endpointId)).filter((row) => row.lease_token !== null || row.status !== 'pending').length;
      expect(await leasedAtOnce(busy)).toBe(16);
      expect(await leasedAtOnce(other)).toBe(16);
      await until('the handed deliveries settled', async () => (await rowsOf(busy)).filter((row) => row.status === 'succeeded').length === 16, 20_000);
      expect(slow.mostInFlight()).toBe(2);
      // The quick endpoint was not held behind the slow one's queue (and its answers already claimed some of the rest).
      expect((await rowsOf(other)).filter((row) => row.status === 'succeeded').length).toBeGreaterThanOrEqual(16);

      // The rest is claimed as answers come, or when the worker looks for due deliveries (its timer, here by hand:
      // what waits behind an endpoint at its cap is found by the timer).
      await until('every delivery settled', async () => {
        await worker.poll();
        return [...(await rowsOf(busy)), ...(await rowsOf(other))].every((row) => row.status === 'succeeded');
      }, 20_000);
      expect([...(await rowsOf(busy)), ...(await rowsOf(other))].every((row) => row.attempts === 1)).toBe(true);
      expect(slow.mostInFlight()).toBe(2);
      expect(new Set(slow.received).size).toBe(20);
      expect(slow.received).toHaveLength(20);
    } finally {
      await worker.stop();
      await slow.close();
      await quick.close();
    }
  });

  it('a slow endpoint’s queue never keeps the slots from another endpoint’s due deliveries', async () => {
    const slow = await startLoopbackReceiver(() => new Promise((resolve) => setTimeout(resolve, 3_000)));
    const quick = await startLoopbackReceiver();
    const stuck = await endpointAt('acct_handoff_4', slow.url);
    // 4 slots, 2 per endpoint: the slow endpoint takes 2 and queues 14 more behind its cap.
    const worker = workerWith(4, 2);
    const recorder = new RecordEventsStore(dataSource, worker);
    try {
      expect(await recorder.recordAgentEvents(Array.from({ length: 16 }, (_, i) => agentCreated(`h4-${i}`, 'acct_handoff_4')), 0)).toBe(16);
      await until('the slow endpoint at its cap', () => slow.received.length === 2);
      // Another account's endpoint with deliveries due and unleased (recorded by another process, say).
      const other = await endpointAt('acct_handoff_5', quick.url);
      await new RecordEventsStore(dataSource).recordAgentEvents(Array.from({ length: 3 }, (_, i) => agentCreated(`h5-${i}`, 'acct_handoff_5')), 0);
      const started = Date.now();
      await until('the other endpoint’s deliveries settled', async () => {
        await worker.poll();
        return (await rowsOf(other)).every((row) => row.status === 'succeeded');
      }, 2_500);
      expect(Date.now() - started).toBeLessThan(2_500);
      expect(slow.received).toHaveLength(2);
    } finally {
      await worker.stop();
      await slow.close();
      await quick.close();
    }
  });

  it('the bodies a worker holds stay within its budget: past it, a recording’s deliveries wait for a claim', async () => {
    // Answers come after 1.5 s: no answer starts a claim before the leases are counted.
    const receiver = await startLoopbackReceiver(() => new Promise((resolve) => setTimeout(resolve, 1_500)));
    const endpointId = await endpointAt('acct_handoff_6', receiver.url);
    // Room by count for 32 of the endpoint's deliveries; by body, for 3 of the longest body recorded below.
    const events = Array.from({ length: 10 }, (_, i) => agentCreated(`h6-${i}`, 'acct_handoff_6'));
    const longest = Math.max(...events.map((event) => JSON.stringify(event).length));
    const worker = workerWith(4, 4, 3 * longest + longest / 2);
    const recorder = new RecordEventsStore(dataSource, worker);
    try {
      expect(await recorder.recordAgentEvents(events, 0)).toBe(10);
      const [{ longest_body: longestBody }] = await dataSource.query(`SELECT max(length(body))::int AS longest_body FROM notifications.events WHERE account_id = 'acct_handoff_6'`);
      const handed = Math.floor((3 * longest + longest / 2) / longestBody);
      expect(handed).toBeGreaterThanOrEqual(1);
      expect(handed).toBeLessThan(10);
      // Handed over in the recording: leased (or already settled); the rest unleased and pending.
      expect((await rowsOf(endpointId)).filter((row) => row.lease_token !== null || row.status !== 'pending')).toHaveLength(handed);
      await until('every delivery settled', async () => {
        await worker.poll();
        return (await rowsOf(endpointId)).every((row) => row.status === 'succeeded');
      }, 20_000);
      expect(new Set(receiver.received).size).toBe(10);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('a recording rolled back leaves nothing leased and gives the worker its room back', async () => {
    const receiver = await startLoopbackReceiver();
    const endpointId = await endpointAt('acct_handoff_3', receiver.url);
    // Every delivery of the account's next event fails to be written: the whole recording rolls back.
    await dataSource.query(`
      CREATE FUNCTION notifications.refuse_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await dataSource.query(`CREATE TRIGGER refuse_delivery BEFORE INSERT ON notifications.deliveries FOR EACH ROW WHEN (NEW.account_id = 'acct_handoff_3') EXECUTE FUNCTION notifications.refuse_delivery()`);
    // One slot per endpoint in flight: the worker holds 8 of it at most, all of which the failed recording asked for.
    const worker = workerWith(1, 1);
    const recorder = new RecordEventsStore(dataSource, worker);
    try {
      const first = Array.from({ length: 8 }, (_, i) => agentCreated(`h3-a${i}`, 'acct_handoff_3'));
      await expect(recorder.recordAgentEvents(first, 0)).rejects.toThrow(/refused for the test/);
      expect(await rowsOf(endpointId)).toEqual([]);
      await dataSource.query('DROP TRIGGER refuse_delivery ON notifications.deliveries');

      const second = Array.from({ length: 8 }, (_, i) => agentCreated(`h3-b${i}`, 'acct_handoff_3'));
      expect(await recorder.recordAgentEvents(second, 0)).toBe(8);
      await until('the second recording’s deliveries settled', async () => {
        const rows = await rowsOf(endpointId);
        return rows.length === 8 && rows.every((row) => row.status === 'succeeded');
      });
      expect(receiver.received).toHaveLength(8);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
