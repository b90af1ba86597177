import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../database/gateway-database.js';
import type { GatewaySettings } from '../tokens.js';
import { DeliveryRetention } from './delivery-retention.js';
import { WebhookDeliveriesStore, type DeliveryWrite } from './webhook-deliveries.store.js';
import { newDeliveryId } from './webhook-ingest.handler.js';

/** The delivery log's SQL on a real database: duplicates decided by the insert, retention, rejection counts. */
describe('webhook delivery log (gateway.webhook_deliveries)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: WebhookDeliveriesStore;
  const quiet = createLogger('test');
  quiet.level = 'silent';

  const write = (overrides: Partial<DeliveryWrite> = {}): DeliveryWrite => ({
    id: newDeliveryId(),
    accountId: 'acct_1',
    integrationId: 'int_1',
    platform: 'platform_a',
    body: Buffer.from('{"event":"call_ended"}'),
    outcome: 'accepted',
    reason: null,
    eventType: 'call_ended',
    platformCallId: 'call-1',
    platformAgentId: 'agent_1',
    conversationId: 'call-1',
    eventIds: ['pa:call-1:call.ended:call_ended'],
    fingerprint: 'f1',
    replayOf: null,
    ...overrides,
  });

  beforeAll(async () => {
    db = await createTestDatabase('webhook-log');
    dataSource = await openGatewayDatabase(db.url);
    store = new WebhookDeliveriesStore(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('the insert itself tells an accepted delivery from a duplicate of one (same account, same call events)', async () => {
    const first = await store.record(write());
    const again = await store.record(write());
    const otherAccount = await store.record(write({ accountId: 'acct_2' }));
    const otherEvents = await store.record(write({ fingerprint: 'f2' }));
    expect([first.outcome, again.outcome, otherAccount.outcome, otherEvents.outcome]).toEqual(['accepted', 'duplicate', 'accepted', 'accepted']);
    expect(again.reason).toContain(first.id);
    // A failed publish turns the acceptance back: the next retry is accepted again.
    await store.markFailed(otherEvents.id, 'no ack');
    expect((await store.record(write({ fingerprint: 'f2' }))).outcome).toBe('accepted');
  });

  it('prunes deliveries past the retention period, and only those', async () => {
    const old = await store.record(write({ accountId: 'acct_old', fingerprint: null, outcome: 'ignored' }));
    const recent = await store.record(write({ accountId: 'acct_old', fingerprint: null, outcome: 'ignored' }));
    await dataSource.query(`UPDATE gateway.webhook_deliveries SET received_at = now() - interval '31 days' WHERE id = $1`, [old.id]);
    const retention = new DeliveryRetention(store, { rpcTimeoutMs: 1000, webhookRetentionDays: 30 } satisfies GatewaySettings, quiet);
    expect(await retention.pruneNow()).toBe(1);
    expect(await store.find('acct_old', old.id)).toBeUndefined();
    expect((await store.find('acct_old', recent.id))?.body.toString()).toBe('{"event":"call_ended"}');
  });

  it('counts refused deliveries per integration over 24 hours, with the last reason', async () => {
    await store.countRejection('int_r', 'acct_r', 'invalid_signature');
    await store.countRejection('int_r', 'acct_r', 'invalid_signature');
    await store.countRejection('int_r', 'acct_r', 'stale_timestamp');
    await dataSource.query(`INSERT INTO gateway.webhook_rejections VALUES ('int_r', 'acct_r', now() - interval '2 days', 'invalid_signature', 40, now() - interval '2 days')`);
    const counts = await store.rejections('acct_r', ['int_r', 'int_none']);
    expect(counts.get('int_r')).toEqual({ rejected_deliveries_24h: 3, last_rejection: { reason: 'stale_timestamp', at: expect.any(String) } });
    expect(counts.has('int_none')).toBe(false);
    // Another account cannot read this integration's counts.
    expect((await store.rejections('acct_x', ['int_r'])).size).toBe(0);
  });
  it('lists a page and its total from one snapshot, while deliveries keep arriving', async () => {
    const accountId = 'acct_busy';
    let writing = true;
    const writer = (async () => {
      while (writing) await store.record(write({ accountId, fingerprint: null }));
    })();
    try {
      // Every listing sees the whole log at once: the total is exactly what the page (big enough for all) holds.
      for (let i = 0; i < 60; i++) {
        const { items, total } = await store.list(accountId, {}, 500, 0);
        expect(items).toHaveLength(total);
      }
      const { items, total } = await store.list(accountId, {}, 10, 10_000);
      expect(items).toEqual([]);
      expect(total).toBeGreaterThan(0);
    } finally {
      writing = false;
      await writer;
    }
  });
});
