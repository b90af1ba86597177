/**
 * No data the API accepted can make a read fail: replies bigger than the message bus carries (1 MiB) travel as
 * claim checks (libs/service-kit/src/bus/reply-claims.ts) through the distributed stack (gateway → NATS → services).
 * Each case below answered 503 after a 5 s wait before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

const T0 = Date.parse('2025-04-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const EMOJI = '😀'; // 4 bytes in UTF-8

describe('reads bigger than the bus', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let agentId: string;

  beforeAll(async () => {
    // Generous: an agent create waits up to its inline platform-sync bound (8 s) before it answers, and these payloads
    // are the largest the API accepts; under a loaded CI machine 10 s left too little beside that bound.
    system = await startSystem({ rpcTimeoutMs: 30_000 });
    account = await system.createAccount({ agent_limit: 40, voice_platforms: ['platform_a'] });
    const agent = await account.api.post('/v1/agents', { name: 'Bulky', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('a conversation with two accepted transcript events of 90 × 10,000 characters: detail and transcript are readable', async () => {
    const id = 'long-transcript';
    const segments = (offset: number) =>
      Array.from({ length: 90 }, (_, i) => ({ speaker: i % 2 ? 'caller' : 'agent', text: `${offset + i} ${'x'.repeat(9_990)}`, start_ms: (offset + i) * 1000, end_ms: (offset + i) * 1000 + 900 }));
    const started = { id: `${id}-1`, type: 'call.started', conversation_id: id, agent_id: agentId, occurred_at: at(0), data: { caller_number: '+14155550111', start_time: at(0) } };
    expect((await account.api.post('/v1/call-events', { events: [started] })).status).toBe(202);
    for (const [n, offset] of [[2, 0], [3, 90]] as const) {
      const event = { id: `${id}-${n}`, type: 'call.transcript', conversation_id: id, agent_id: agentId, occurred_at: at(n), data: { segments: segments(offset) } };
      expect((await account.api.post('/v1/call-events', { events: [event] })).status).toBe(202);
    }
    const detail = await pollUntil(
      () => account.api.get(`/v1/conversations/${id}`),
      (r) => r.status === 200 && r.body.data.content?.transcript?.length === 180,
      20_000,
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data.content.transcript).toHaveLength(180);
    expect(detail.text.length).toBeGreaterThan(1_048_576);
    const transcript = await account.api.get(`/v1/conversations/${id}/transcript?format=json`);
    expect(transcript.status).toBe(200);
    expect(transcript.text.length).toBeGreaterThan(1_048_576);
    expect(JSON.stringify(transcript.body.data)).toContain(`179 ${'x'.repeat(20)}`);
  }, 60_000);

  it('60 calls with 10,000-emoji summaries: a page of 100 is readable', async () => {
    const summary = EMOJI.repeat(10_000);
    for (let batch = 0; batch < 3; batch += 1) {
      const events = Array.from({ length: 20 }, (_, i) => {
        const n = batch * 20 + i;
        const id = `emoji-${n}`;
        return [
          { id: `${id}-1`, type: 'call.started', conversation_id: id, agent_id: agentId, occurred_at: at(n), data: { caller_number: '+14155550112', start_time: at(n) } },
          { id: `${id}-2`, type: 'call.ended', conversation_id: id, agent_id: agentId, occurred_at: at(n + 60), data: { end_time: at(n + 60), duration: 60, summary } },
        ];
      }).flat();
      expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);
    }
    const page = await pollUntil(
      () => account.api.get('/v1/conversations?caller=%2B14155550112&per_page=100'),
      (r) => r.status === 200 && r.body.meta.total === 60,
      20_000,
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(60);
  }, 60_000);

  it('25 agents at their largest: the default page of the agent list is readable', async () => {
    const big = {
      voice_platform: 'platform_a',
      system_prompt: EMOJI.repeat(10_000),
      welcome_message: EMOJI.repeat(500),
      metadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key_${i}`, EMOJI.repeat(500)])),
    };
    // Created as a client is told to: with an Idempotency-Key, retried on 503 (the gateway's bound passed on a busy
    // machine; the create may still land) and 409 (that create still running), so each agent is made once.
    for (let i = 0; i < 25; i += 1) {
      const key = { 'Idempotency-Key': `large-agent-${randomUUID()}` };
      const create = () => account.api.post('/v1/agents', { ...big, name: `${EMOJI.repeat(90)} ${i}` }, key);
      const res = await pollUntil(create, (r) => r.status !== 503 && r.status !== 409, 60_000, 250);
      expect(res.status).toBe(201);
    }
    const list = await account.api.get('/v1/agents');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(25);
    expect(list.text.length).toBeGreaterThan(1_048_576 / 4);
    expect(Buffer.byteLength(list.text)).toBeGreaterThan(1_048_576);
  }, 300_000);
});
