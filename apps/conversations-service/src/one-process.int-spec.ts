import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  AGENT_EVENTS_STREAM, agentEventSubject, CALL_EVENTS_STREAM, callEventSubject, ConversationsRpc, namespacedStream, namespacedSubject,
  type ConversationListItem, type PageResult,
} from '@voice/contracts';
import { InProcessBus, InProcessClient, InProcessStreams } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import { firstValueFrom, timeout } from 'rxjs';
import { startConversationsService, type RunningConversationsService } from './app.js';
import { generateCalls } from '@voice/call-generator';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/** `npm start` without NATS runs the apps in one process over the in-process bus and streams: same behaviour. */
describe('one-process mode (no NATS server)', () => {
  let db: TestDatabase;
  let service: RunningConversationsService;
  const rpc = new InProcessBus();
  const streams = new InProcessStreams();
  const client = new InProcessClient(rpc);

  beforeAll(async () => {
    db = await createTestDatabase('convlocal');
    // The gateway and the agents relay create these streams in that mode.
    await streams.ensureStream(namespacedStream(undefined, CALL_EVENTS_STREAM), [namespacedSubject(undefined, 'call_events.>')]);
    await streams.ensureStream(namespacedStream(undefined, AGENT_EVENTS_STREAM), [namespacedSubject(undefined, 'agent_events.>')]);
    service = await startConversationsService({ databaseUrl: db.url, local: { rpc, streams } });
  });
  afterAll(async () => {
    await service?.close();
    await db?.drop();
  });

  it('consumes agent and call events and answers the list', async () => {
    const agent = { agent_id: 'agt_local', account_id: 'acc_local', name: 'Local', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true };
    await streams.publish(agentEventSubject('AgentCreated'), { id: 'ae1', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(), agent }, 'ae1');
    const calls = generateCalls({ count: 30, seed: 4, agentIds: ['agt_local'], idPrefix: 'local' });
    for (const e of calls.flatMap((c) => c.events)) await streams.publish(callEventSubject(e.type), e, e.id);
    const deadline = Date.now() + 10_000;
    let page: PageResult<ConversationListItem>;
    do {
      page = await firstValueFrom(client.send(ConversationsRpc.list, { account_id: 'acc_local', query: { per_page: '100' } }).pipe(timeout(3000)));
      if (page.total === 30) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    expect(page.total).toBe(30);
    expect(page.items.every((i) => i.agent_name === 'Local')).toBe(true);
    await expect(firstValueFrom(client.send(ConversationsRpc.get, { account_id: 'acc_local', conversation_id: 'nope' }))).rejects.toMatchObject({ code: 'not_found' });
  });
});
