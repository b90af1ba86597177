import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { OriginatedAgentEvent } from '@voice/contracts';
import { createLogger, InProcessStreams, type StreamMessage } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../database/gateway-database.js';
import { AgentEventsAudit } from './agent-events-audit.consumer.js';
import { AuditEventsStore } from './audit-events.store.js';

/** A delivered message as the bus hands it over, remembering how it was settled. */
function delivered(data: unknown, deliveryCount = 1): StreamMessage & { settled?: string } {
  const message: StreamMessage & { settled?: string } = {
    subject: 'agent_events.x',
    data,
    deliveryCount,
    ack: () => (message.settled = 'ack'),
    nak: () => (message.settled = 'nak'),
    term: () => (message.settled = 'term'),
  };
  return message;
}

const updated = (id: string): OriginatedAgentEvent => ({
  id,
  type: 'AgentUpdated',
  version: 2,
  occurred_at: new Date().toISOString(),
  agent: { agent_id: 'agt_1', account_id: 'acct_1' } as OriginatedAgentEvent['agent'],
  origin: { request_id: 'req-1', actor_key_id: null, client_address: '203.0.113.7' },
  changed_fields: ['store_content'],
});

/** One delivery of AGENT_EVENTS into the audit log, on a real database. */
describe('agent events into the audit log', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: AuditEventsStore;
  let consumer: AgentEventsAudit;
  const quiet = createLogger('test');
  quiet.level = 'silent';

  beforeAll(async () => {
    db = await createTestDatabase('audit-consumer');
    dataSource = await openGatewayDatabase(db.url);
    store = new AuditEventsStore(dataSource);
    consumer = new AgentEventsAudit(store, new InProcessStreams(), { rpcTimeoutMs: 1000 }, quiet);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('acknowledges notices, terminates malformed events, writes the rest once however often they are delivered', async () => {
    const notice = delivered({ type: 'agent.sync_failed', id: 'n-1' });
    const malformed = delivered({ type: 'AgentUpdated', id: 'e-0' });
    const event = delivered(updated('e-1'));
    await consumer.handle([notice, malformed, event]);
    const again = delivered(updated('e-1'), 2);
    await consumer.handle([again]);
    expect([notice.settled, malformed.settled, event.settled, again.settled]).toEqual(['ack', 'term', 'ack', 'ack']);
    const { items } = await store.list('acct_1', {}, 10, 0);
    expect(items.map((i) => [i.action, i.changed_fields, i.actor])).toEqual(
      expect.arrayContaining([
        ['agent.updated', ['store_content'], { type: 'system' }],
        ['agent.privacy_settings_changed', ['store_content'], { type: 'system' }],
      ]),
    );
    expect(items).toHaveLength(2);
  });

  it('leaves the batch unacknowledged when the write fails, to be delivered again', async () => {
    const event = delivered(updated('e-2'));
    await dataSource.query('ALTER TABLE gateway.audit_events RENAME TO audit_events_away');
    try {
      await expect(consumer.handle([event])).rejects.toThrow();
    } finally {
      await dataSource.query('ALTER TABLE gateway.audit_events_away RENAME TO audit_events');
    }
    expect(event.settled).toBeUndefined();
  });
});
