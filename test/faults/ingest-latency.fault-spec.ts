import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startSystem, type RunningSystem, type TestAccount } from '../support/system.js';
import { pollUntil } from '../support/poll.js';

/**
 * How soon an accepted batch of call events is listed. A latency bound, so it runs here, in band, where no other test
 * file competes for the 2 cores (in the parallel `npm test` it measured the neighbouring file as much as the ingest).
 */

const T0 = Date.parse('2025-04-01T09:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const startedEvent = (conversationId: string, agentId: string, seconds: number) => ({
  id: `fault-${randomUUID()}`, type: 'call.started', conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds),
  data: { caller_number: '+14155550113', start_time: at(seconds) },
});

describe('ingest latency', () => {
  let system: RunningSystem;
  let account: TestAccount;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ voice_platforms: ['platform_a'] });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('an event accepted with 202 is in the list within 1 second', async () => {
    const agent = await account.api.post('/v1/agents', { name: `Single ${randomUUID().slice(0, 8)}`, voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const id = `conv-${randomUUID()}`;
    const res = await account.api.post('/v1/call-events', startedEvent(id, agent.body.data.id, 5000));
    expect(res.status).toBe(202);
    const t0 = Date.now();
    const found = await pollUntil(() => account.api.get('/v1/conversations?status=in_progress'), (r) => r.body.data.some((c: { id: string }) => c.id === id), 2000, 25);
    expect(found.body.data.map((c: { id: string }) => c.id)).toContain(id);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a 500-event batch of new conversations is fully listed within 1 second of its 202', async () => {
    // An agent of its own, so the list's total counts exactly this batch; known to conversations-service first.
    const agent = await account.api.post('/v1/agents', { name: `Burst ${randomUUID().slice(0, 8)}`, voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const burstAgent: string = agent.body.data.id;
    const warmUp = await account.api.post('/v1/call-events', startedEvent(`conv-${randomUUID()}`, burstAgent, 6000));
    expect(warmUp.status).toBe(202);
    await pollUntil(() => account.api.get(`/v1/conversations?agent_id=${burstAgent}&per_page=1`), (r) => r.body.meta?.total === 1, 8000, 25);

    const events = Array.from({ length: 500 }, (_, i) => startedEvent(`burst-${randomUUID()}`, burstAgent, 7000 + i));
    const res = await account.api.post('/v1/call-events', { events });
    expect(res.status).toBe(202);
    const t0 = Date.now();
    const listed = await pollUntil(() => account.api.get(`/v1/conversations?agent_id=${burstAgent}&per_page=1`), (r) => r.body.meta?.total === 501, 5000, 25);
    const elapsed = Date.now() - t0;
    process.stdout.write(`500-event batch fully listed ${elapsed} ms after its 202\n`);
    expect(listed.body.meta.total).toBe(501);
    expect(elapsed).toBeLessThan(1000);
  });
});
