import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AGENT_EVENTS_STREAM, AgentsRpc, IntegrationsRpc, namespacedStream, type AgentIntegrationEvent, type AgentReply } from '@voice/contracts';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { testNatsUrl } from '@voice/testing';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

interface Received {
  subject: string;
  msgId: string | undefined;
  event: AgentIntegrationEvent;
}

describe('agent events relay to JetStream', () => {
  let h: AgentsHarness;
  let nc: NatsConnection;
  beforeAll(async () => {
    h = await startAgentsHarness('relay');
    nc = await connect({ servers: testNatsUrl() });
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  // The relay waits for every older transaction in the cluster to finish (xid order), so a busy
  // database (other test files running in parallel) can delay it for seconds: wait generously.
  /** Read the whole stream from the start with an ordered (ephemeral) consumer until `until` holds. */
  async function readStreamUntil(until: (all: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> {
    const consumer = await jetstream(nc).consumers.get(namespacedStream(h.namespace, AGENT_EVENTS_STREAM));
    const messages = await consumer.consume();
    const received: Received[] = [];
    const timer = setTimeout(() => messages.stop(), timeoutMs);
    for await (const m of messages) {
      received.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), event: m.json<AgentIntegrationEvent>() });
      if (until(received)) break;
    }
    clearTimeout(timer);
    messages.stop();
    return received;
  }

  it('publishes created, renamed and deleted in order with versions 1..3 and full snapshots', async () => {
    const account = await h.account();
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Relay me', voice_platform: 'platform_b', phone_number: '+14155553001', recording_enabled: false } });
    await h.rpc(AgentsRpc.update, { account, agent_id: agent.id, body: { name: 'Relayed' } });
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: agent.id });

    const mine = (all: Received[]) => all.filter((r) => r.event.agent?.agent_id === agent.id);
    const received = mine(await readStreamUntil((all) => mine(all).length >= 3));
    expect(received.map((r) => [r.event.type, r.event.version, r.event.agent.name, r.event.agent.status])).toEqual([
      ['AgentCreated', 1, 'Relay me', 'active'],
      ['AgentUpdated', 2, 'Relayed', 'active'],
      ['AgentDeleted', 3, 'Relayed', 'deleted'],
    ]);
    expect(received[0].event.agent).toEqual({
      agent_id: agent.id,
      account_id: account.id,
      name: 'Relay me',
      voice_platform: 'platform_b',
      status: 'active',
      recording_enabled: false,
      transcription_enabled: true,
      pii_redaction: { enabled: false, categories: ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'] },
      store_content: true,
      retention: { conversations_days: null, recordings_days: null },
    });
    expect(received.map((r) => r.subject)).toEqual([
      `${h.namespace}.agent_events.AgentCreated`,
      `${h.namespace}.agent_events.AgentUpdated`,
      `${h.namespace}.agent_events.AgentDeleted`,
    ]);
    for (const r of received) {
      expect(r.msgId).toBe(r.event.id);
      expect(new Date(r.event.occurred_at).toISOString()).toBe(r.event.occurred_at);
    }
  }, 30_000);

  it('of the platform sync and the integrations, publishes only a failed sync and a refused key, each once, after the agent’s own events', async () => {
    const account = newAccount({ voice_platforms: ['platform_a'] });
    const ownKey = `relay-own-${randomUUID()}`;
    const simulator = h.simulators.platformA;
    simulator.setApiKeys([...simulator.getApiKeys(), ownKey]);
    await h.rpc(IntegrationsRpc.configure, {
      account, platform: 'platform_a', public_url: 'http://127.0.0.1:8080',
      body: { api_key: ownKey, webhook_secret: 'whsec_relay_secret', base_url: h.simulators.urls.platformA },
    });
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Synced', voice_platform: 'platform_a', phone_number: '+14155553002' } });
    expect(agent.platform_sync.state).toBe('synced');
    simulator.setApiKeys(simulator.getApiKeys().filter((k) => k !== ownKey));
    await h.rpc(AgentsRpc.update, { account, agent_id: agent.id, body: { name: 'Refused' } });

    const isMine = (r: Received) => (r.event as { agent?: { account_id: string }; account_id?: string }).agent?.account_id === account.id
      || (r.event as { account_id?: string }).account_id === account.id;
    const received = (await readStreamUntil((all) => all.filter(isMine).length >= 4)).filter(isMine);
    expect(received.map((r) => r.event.type)).toEqual(['AgentCreated', 'AgentUpdated', 'AgentSyncFailed', 'IntegrationCredentialsRefused']);
    const [, , failed, refused] = received.map((r) => r.event as unknown as Record<string, any>);
    expect(failed).toMatchObject({
      version: 2, agent: { agent_id: agent.id, name: 'Refused', status: 'active' },
      failure: { code: 'invalid_platform_credentials', permanent: true, platform: 'platform_a', attempt: 1 },
    });
    expect(refused).toMatchObject({ account_id: account.id, platform: 'platform_a', integration_id: expect.stringMatching(/^int_/) });
    expect(JSON.stringify(received.map((r) => r.event))).not.toContain(ownKey);
    for (const r of received) expect(r.msgId).toBe(r.event.id);
    expect(received.slice(2).map((r) => r.subject)).toEqual([`${h.namespace}.agent_events.AgentSyncFailed`, `${h.namespace}.agent_events.IntegrationCredentialsRefused`]);
  }, 30_000);

  it('does not skip an event whose transaction commits after a later one', async () => {
    const account = await h.account();
    const lateId = `agt_late_${randomUUID().slice(0, 8)}`;
    const lateEventId = randomUUID();
    const client = new pg.Client({ connectionString: h.db.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO agents.events (stream_id, stream_version, event_id, type, data) VALUES ($1, 1, $2, 'AgentCreated', $3::jsonb)`,
        [
          `agent-${lateId}`,
          lateEventId,
          JSON.stringify({
            agent_id: lateId, account_id: account.id, name: 'Late', voice_platform: 'platform_a', phone_number: '+14155553001',
            voice_id: 'v', language: 'en', system_prompt: null, welcome_message: null, transfer_number: null, business_hours: null,
            recording_enabled: true, transcription_enabled: true, metadata: {}, created_at: new Date().toISOString(),
          }),
        ],
      );
      // A later transaction appends and commits while the first one is still open.
      const { agent: early } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Early', voice_platform: 'platform_a' } });
      await new Promise((r) => setTimeout(r, 300));
      await client.query('COMMIT');

      const ours = (all: Received[]) => all.filter((r) => r.event.agent?.account_id === account.id);
      const received = ours(await readStreamUntil((all) => ours(all).length >= 2));
      expect(received.map((r) => r.event.agent.agent_id)).toEqual([lateId, early.id]);
      expect(received[0].event.id).toBe(lateEventId);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  }, 30_000);
});
