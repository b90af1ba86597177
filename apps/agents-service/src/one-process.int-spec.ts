import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AGENT_EVENTS_STREAM, AgentsRpc, IntegrationsRpc, type AgentIntegrationEvent, type AgentReply } from '@voice/contracts';
import { InProcessBus, InProcessClient, InProcessStreams, withoutProgress, type RunningConsumer } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import { firstValueFrom, timeout } from 'rxjs';
import { startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { startAgentsService, type RunningAgentsService } from './app.js';
import { newAccount } from './testing/agents-harness.js';

/** `npm start` without NATS runs the apps in one process over the in-process bus and streams: same behaviour. */
describe('agents-service in one-process mode (no NATS server)', () => {
  let db: TestDatabase;
  let service: RunningAgentsService;
  const rpc = new InProcessBus();
  const streams = new InProcessStreams();
  const client = new InProcessClient(rpc);
  const send = <T>(subject: string, payload: unknown) => firstValueFrom(client.send<T>(subject, payload).pipe(withoutProgress<T>(), timeout(5000)));

  let simulators: RunningSimulators;

  beforeAll(async () => {
    db = await createTestDatabase('agentslocal');
    simulators = await startSimulators({ apiKeys: ['local-key'] });
    service = await startAgentsService({ databaseUrl: db.url, local: { rpc, streams }, relayPollIntervalMs: 50, platformHttp: { allowPrivate: true } });
  });
  afterAll(async () => {
    await service?.close();
    await simulators?.stop();
    await db?.drop();
  });

  it('answers the agent RPCs with the same structured errors and relays agent events to the in-process stream', async () => {
    const account = newAccount({ agent_limit: 1 });
    await send(IntegrationsRpc.configure, {
      account,
      platform: 'platform_a',
      body: { api_key: 'local-key', webhook_secret: 'local-webhook-secret', base_url: simulators.urls.platformA },
      public_url: 'http://127.0.0.1:3000',
    });
    const { agent } = await send<AgentReply>(AgentsRpc.create, { account, body: { name: 'Local', voice_platform: 'platform_a', phone_number: '+14155554001' } });
    await expect(send(AgentsRpc.create, { account, body: { name: 'Second', voice_platform: 'platform_a' } })).rejects.toMatchObject({
      code: 'quota_exceeded',
      limit: 1,
      current: 1,
    });
    await send(AgentsRpc.update, { account, agent_id: agent.id, body: { name: 'Local renamed' } });

    const received: AgentIntegrationEvent[] = [];
    let consumer: RunningConsumer | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${received.length} events relayed`)), 10_000);
      void streams
        .consume({ stream: AGENT_EVENTS_STREAM, subjects: ['agent_events.>'], durable: 'spec' }, async (batch) => {
          for (const m of batch) {
            received.push(m.data as AgentIntegrationEvent);
            m.ack();
          }
          if (received.length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        })
        .then((c) => (consumer = c));
    });
    await consumer?.stop();
    expect(received.map((e) => [e.type, e.version, e.agent.name])).toEqual([
      ['AgentCreated', 1, 'Local'],
      ['AgentUpdated', 2, 'Local renamed'],
    ]);
  });
});
