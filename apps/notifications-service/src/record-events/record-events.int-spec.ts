import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentIntegrationEvent, AgentStreamMessage, ConversationChange, ConversationListItem } from '@voice/contracts';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { DeliveriesStore } from '../deliver-events/deliveries.store.js';
import { RecordEventsStore } from './record-events.store.js';

const agentEvent = (id: string, accountId: string, agentId: string): AgentIntegrationEvent => ({
  id, type: 'AgentCreated', version: 1, occurred_at: '2026-01-01T00:00:00.000Z',
  agent: { agent_id: agentId, account_id: accountId, name: 'A', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
});
const change = (accountId: string, id: string, status: ConversationListItem['status'], version: number): ConversationChange => ({
  type: version === 1 ? 'conversation.created' : 'conversation.updated', account_id: accountId, version,
  conversation: { id, agent_id: 'agt_1', agent_name: 'A', caller_number: null, status, start_time: null, end_time: null, duration: 0, sentiment: null,
    outcome: null, topics: [], has_recording: false, has_transcript: false, summary: null, created_at: '2026-01-01T00:00:00.000Z' },
});

describe('recording events and planning their deliveries (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: RecordEventsStore;
  let endpointSeq = 0;
  const endpoint = async (accountId: string, over: { enabled?: boolean; event_types?: string[] | null } = {}) => {
    const id = `we_${String(++endpointSeq).padStart(24, '0')}`;
    await dataSource.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, event_types, secret_sealed, secret_hint, created_at, updated_at)
       VALUES ($1, $2, 'http://127.0.0.1:9/', $3, $4, 'sealed', 'hint', now(), now())`,
      [id, accountId, over.enabled ?? true, over.event_types ?? null],
    );
    return id;
  };
  const eventsOf = (accountId: string) => dataSource.query('SELECT type, conversation_id FROM notifications.events WHERE account_id = $1 ORDER BY created_at, type', [accountId]);

  beforeAll(async () => {
    db = await createTestDatabase('notifrecord');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
    store = new RecordEventsStore(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('records a source change once: the same agent event delivered again (a crash before its ack) records and plans nothing more', async () => {
    const wanting = await endpoint('acct_a');
    const other = await endpoint('acct_b');
    expect(await store.recordAgentEvents([agentEvent('ae-1', 'acct_a', 'agt_1')], 0)).toBe(1);
    expect(await store.recordAgentEvents([agentEvent('ae-1', 'acct_a', 'agt_1')], 0)).toBe(0);
    expect(await eventsOf('acct_a')).toEqual([{ type: 'agent.created', conversation_id: null }]);
    const deliveries = await dataSource.query('SELECT endpoint_id, status FROM notifications.deliveries');
    expect(deliveries).toEqual([{ endpoint_id: wanting, status: 'pending' }]);
    expect(deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)).not.toContain(other);
  });

  it('a failed sync and a refused key relayed again (a crash before the ack) are each recorded and planned once', async () => {
    const wanting = await endpoint('acct_n', { event_types: ['agent.sync_failed', 'integration.credentials_invalid'] });
    const notices: AgentStreamMessage[] = [
      {
        id: 'sync-failed-1', type: 'AgentSyncFailed', version: 2, occurred_at: '2026-01-01T00:00:01.000Z', agent: agentEvent('x', 'acct_n', 'agt_n').agent,
        failure: { code: 'invalid_platform_credentials', message: 'refused', permanent: true, platform: 'platform_a', attempt: 1 },
      },
      {
        id: 'refused-1', type: 'IntegrationCredentialsRefused', occurred_at: '2026-01-01T00:00:01.000Z', account_id: 'acct_n', integration_id: 'int_n',
        platform: 'platform_a', reason: 'platform_a refused the stored API key while an agent was being synced to it.',
      },
    ];
    expect(await store.recordAgentEvents(notices, 0)).toBe(2);
    expect(await store.recordAgentEvents(notices, 0)).toBe(0);
    expect(await eventsOf('acct_n')).toEqual([
      { type: 'agent.sync_failed', conversation_id: null }, { type: 'integration.credentials_invalid', conversation_id: null },
    ]);
    const deliveries = await dataSource.query(
      'SELECT e.type FROM notifications.deliveries d JOIN notifications.events e ON e.id = d.event_id WHERE d.endpoint_id = $1 ORDER BY e.type', [wanting],
    );
    expect(deliveries).toEqual([{ type: 'agent.sync_failed' }, { type: 'integration.credentials_invalid' }]);
  });

  it('a conversation is started once, ended once (its first change showing the end), then updated', async () => {
    const changes = [change('acct_c', 'conv_1', 'in_progress', 1), change('acct_c', 'conv_1', 'in_progress', 2), change('acct_c', 'conv_1', 'completed', 3)];
    expect(await store.recordConversationChanges(changes, 0)).toBe(3);
    expect(await store.recordConversationChanges([change('acct_c', 'conv_1', 'completed', 3)], 0)).toBe(0);
    expect(await store.recordConversationChanges([change('acct_c', 'conv_1', 'completed', 4)], 0)).toBe(1);
    const types = (await eventsOf('acct_c')).map((e: { type: string }) => e.type);
    expect(types.sort()).toEqual(['conversation.ended', 'conversation.started', 'conversation.updated', 'conversation.updated'].sort());
  });

  it('coalesces in-progress updates: one pending per conversation and endpoint (the newest), the next 5 s after the previous one was due', async () => {
    const watcher = await endpoint('acct_co', { event_types: ['conversation.updated'] });
    const pendingUpdates = () => dataSource.query(
      `SELECT e.body::json->'data'->>'sequence' AS sequence, d.window_at FROM notifications.deliveries d JOIN notifications.events e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 AND d.status = 'pending' ORDER BY d.created_at`, [watcher],
    );
    await store.recordConversationChanges([change('acct_co', 'conv_co', 'in_progress', 1)], 0);
    for (const version of [2, 3, 4]) await store.recordConversationChanges([change('acct_co', 'conv_co', 'in_progress', version)], 0);
    const [first] = await pendingUpdates();
    expect(await pendingUpdates()).toEqual([{ sequence: '4', window_at: first.window_at }]);
    // Sent; the next update waits out the 5 s window of the one sent.
    await dataSource.query(`UPDATE notifications.deliveries SET status = 'succeeded', attempts = 1 WHERE endpoint_id = $1`, [watcher]);
    await store.recordConversationChanges([change('acct_co', 'conv_co', 'in_progress', 5)], 0);
    const [next] = await pendingUpdates();
    expect(next.sequence).toBe('5');
    expect(next.window_at.getTime() - first.window_at.getTime()).toBeGreaterThanOrEqual(5_000);
    // All five changes stay recorded as events.
    expect((await eventsOf('acct_co')).length).toBe(5);
  });

  it('replicas claiming at once never lease one delivery twice', async () => {
    await endpoint('acct_race');
    await store.recordAgentEvents(Array.from({ length: 40 }, (_, i) => agentEvent(`race-${i}`, 'acct_race', 'agt_1')), 0);
    const deliveries = new DeliveriesStore(dataSource, { disableAfterFailedDeliveries: 1_000, firstDelayMs: 0 });
    const claims = await Promise.all(Array.from({ length: 4 }, (_, i) => deliveries.claim(10, 100, `worker-${i}`, 30_000)));
    const ids = claims.flat().map((d) => d.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('an endpoint never has more leased deliveries than its cap, so the others’ deliveries are claimed beside it', async () => {
    const slow = await endpoint('acct_cap');
    const quick = await endpoint('acct_cap');
    await store.recordAgentEvents(Array.from({ length: 10 }, (_, i) => agentEvent(`cap-${i}`, 'acct_cap', 'agt_1')), 0);
    const deliveries = new DeliveriesStore(dataSource, { disableAfterFailedDeliveries: 1_000, firstDelayMs: 0 });
    const first = await deliveries.claim(100, 3, 'worker-a', 30_000);
    const ofAccount = first.filter((d) => d.endpoint_id === slow || d.endpoint_id === quick);
    expect([ofAccount.filter((d) => d.endpoint_id === slow).length, ofAccount.filter((d) => d.endpoint_id === quick).length]).toEqual([3, 3]);
    // While those leases hold, no worker gets more of either endpoint.
    const later = await deliveries.claim(100, 3, 'worker-b', 30_000);
    expect(later.filter((d) => d.endpoint_id === slow || d.endpoint_id === quick)).toEqual([]);
  });
});
