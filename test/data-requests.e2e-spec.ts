import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { signPlatformBWebhook } from '@voice/platform-simulators';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

jest.setTimeout(120_000);

const CALLER = '+19175550142';
const OTHER = '+19175550977';
const T0 = Date.now() - 600_000;
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
let seq = 0;
const event = (type: string, conversationId: string, agentId: string, seconds: number, data: object) => ({
  id: `dr-${randomUUID()}-${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data,
});
const callOf = (conversationId: string, agentId: string, caller: string) => [
  event('call.started', conversationId, agentId, 0, { caller_number: caller, start_time: at(0) }),
  event('call.transcript', conversationId, agentId, 40, { segments: [{ speaker: 'caller', text: `I live at 12 Elm Street, reach me on ${caller}`, start_ms: 0, end_ms: 3000 }] }),
  event('call.ended', conversationId, agentId, 60, { end_time: at(60), duration: 60, summary: 'Asked to move an appointment.' }),
];

/**
 * Erasure and access per caller through the real path (gateway → NATS → conversations-service, notifications-service
 * and the gateway's own log → PostgreSQL), checked over the API and in the database of every service; then the
 * resurrection attempts a platform and the bus make.
 */
describe('data requests', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let other: TestAccount;
  let db: pg.Client;
  let agentId: string;
  let platformAgentId: string;
  const posted = `conv-${randomUUID()}`;
  const kept = `conv-${randomUUID()}`;
  const webhookCall = randomUUID();
  let webhookBody: string;

  const count = async (sql: string, params: unknown[]) => (await db.query(sql, params)).rows[0].n as number;
  const deliverWebhook = async () => {
    const { webhook_url } = (await account.api.get('/v1/integrations/platform_b')).body.data;
    return fetch(webhook_url, {
      method: 'POST', body: webhookBody, headers: { 'content-type': 'application/json', ...signPlatformBWebhook(webhookBody, system.platforms.webhookSecret) },
    });
  };
  const completed = (owner: TestAccount, id: string) =>
    pollUntil(() => owner.api.get(`/v1/data-requests/${id}`), (r) => r.status === 200 && r.body.data.status === 'completed', 30_000);

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
    account = await system.createAccount();
    other = await system.createAccount();
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
    const res = await account.api.post('/v1/agents', { voice_platform: 'platform_b', name: 'Front desk' });
    expect(res.status).toBe(201);
    agentId = res.body.data.id;
    const agent = await pollUntil(() => account.api.get(`/v1/agents/${agentId}`), (r) => typeof r.body.data?.platform_sync?.platform_agent_id === 'string', 20_000);
    platformAgentId = agent.body.data.platform_sync.platform_agent_id;

    expect((await account.api.post('/v1/call-events', { events: [...callOf(posted, agentId, CALLER), ...callOf(kept, agentId, OTHER)] })).status).toBe(202);
    const startMs = Date.now() - 120_000;
    webhookBody = JSON.stringify({
      message: {
        type: 'end-of-call-report', timestamp: startMs, endedReason: 'customer-ended-call', startedAt: new Date(startMs).toISOString(),
        endedAt: new Date(startMs + 30_000).toISOString(), cost: 0.05,
        call: { id: webhookCall, assistantId: platformAgentId, type: 'inboundPhoneCall', customer: { number: CALLER }, phoneNumber: { number: '+14155550199' } },
        artifact: { messages: [{ role: 'user', message: 'my date of birth is in my file', time: startMs + 3000, endTime: startMs + 8000, secondsFromStart: 3, duration: 5000 }] },
        analysis: { summary: 'Caller asked about their file.' },
      },
    });
    expect((await deliverWebhook()).status).toBe(200);
    for (const id of [posted, kept, webhookCall]) {
      await pollUntil(() => account.api.get(`/v1/conversations/${id}`), (r) => r.status === 200 && r.body.data.status === 'completed', 30_000);
    }
    // Every store holds the calls before the erasure: outbound events and the inbound log too.
    await pollUntil(
      () => count(`SELECT count(DISTINCT conversation_id)::int AS n FROM notifications.events WHERE account_id = $1 AND conversation_id = ANY($2)`, [account.id, [posted, webhookCall]]),
      (n) => n === 2, 30_000,
    );
    expect(await count('SELECT count(*)::int AS n FROM gateway.webhook_deliveries WHERE account_id = $1 AND conversation_id = $2', [account.id, webhookCall])).toBe(1);
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.close();
  });

  it('needs the privacy scopes, and names the field that is wrong', async () => {
    const key = await account.api.post('/v1/api-keys', { name: 'reader', scopes: ['conversations:read'] });
    const reader = system.client(key.body.data.api_key);
    expect((await reader.post('/v1/data-requests', { type: 'erasure', caller_number: CALLER })).status).toBe(403);
    expect((await reader.get('/v1/data-requests')).status).toBe(403);
    const bad = await account.api.post('/v1/data-requests', { type: 'erasure', caller_number: '917-555-0142' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', field: 'caller_number' });
    const badType = await account.api.post('/v1/data-requests', { type: 'delete', caller_number: CALLER });
    expect(badType.body.error).toMatchObject({ code: 'invalid_parameter', field: 'type', valid_values: ['erasure', 'access'] });
  });

  it('an erasure removes the caller’s calls from every service; retries and redeliveries do not bring them back', async () => {
    const res = await account.api.post('/v1/data-requests', { type: 'erasure', caller_number: CALLER });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/v1/data-requests/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({ type: 'erasure', caller_number: '**********42', status: 'pending' });
    const done = await completed(account, res.body.data.id);
    expect(done.body.data).toMatchObject({ conversations_found: 2, conversations_done: 2 });

    for (const id of [posted, webhookCall]) expect((await account.api.get(`/v1/conversations/${id}`)).status).toBe(404);
    expect((await account.api.get(`/v1/conversations/${kept}`)).status).toBe(200);
    expect((await account.api.get(`/v1/conversations?caller=${encodeURIComponent(CALLER)}`)).body.meta.total).toBe(0);
    await pollUntil(() => count('SELECT count(*)::int AS n FROM notifications.events WHERE account_id = $1 AND conversation_id = ANY($2)', [account.id, [posted, webhookCall]]), (n) => n === 0, 20_000);
    await pollUntil(() => count('SELECT count(*)::int AS n FROM gateway.webhook_deliveries WHERE account_id = $1 AND conversation_id = $2', [account.id, webhookCall]), (n) => n === 0, 20_000);
    expect(await count(`SELECT count(*)::int AS n FROM conversations.events WHERE data::text LIKE '%' || $1 || '%'`, [CALLER])).toBe(0);

    // The platform retries its old webhook; a client posts the old call events again; then a witness call of another caller.
    expect((await deliverWebhook()).status).toBe(200);
    expect((await account.api.post('/v1/call-events', { events: callOf(posted, agentId, CALLER).map((e) => ({ ...e, id: `${e.id}-again` })) })).status).toBe(202);
    const witness = `conv-${randomUUID()}`;
    expect((await account.api.post('/v1/call-events', { events: callOf(witness, agentId, OTHER) })).status).toBe(202);
    await pollUntil(() => account.api.get(`/v1/conversations/${witness}`), (r) => r.status === 200, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const id of [posted, webhookCall]) expect((await account.api.get(`/v1/conversations/${id}`)).status).toBe(404);
    expect(await count('SELECT count(*)::int AS n FROM notifications.events WHERE account_id = $1 AND conversation_id = ANY($2)', [account.id, [posted, webhookCall]])).toBe(0);
    // The retried delivery is logged (the platform got its answer) without its body.
    const { rows } = await db.query('SELECT octet_length(body) AS bytes FROM gateway.webhook_deliveries WHERE account_id = $1 AND conversation_id = $2', [account.id, webhookCall]);
    expect(rows).toEqual([{ bytes: 0 }]);
    // A replay from the delivery log has nothing of the call to send again.
    const logged = await account.api.get(`/v1/webhook-deliveries?conversation_id=${webhookCall}`);
    expect(logged.body.data).toHaveLength(1);
    const replay = await account.api.post(`/v1/webhook-deliveries/${logged.body.data[0].id}/replay`);
    expect(replay.status).toBeLessThan(300);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await account.api.get(`/v1/conversations/${webhookCall}`)).status).toBe(404);
  });

  it('an access request’s document is downloadable by its account only', async () => {
    const res = await account.api.post('/v1/data-requests', { type: 'access', caller_number: OTHER });
    expect(res.status).toBe(202);
    const id = res.body.data.id as string;
    expect((await other.api.get(`/v1/data-requests/${id}`)).status).toBe(404);
    expect((await other.api.get(`/v1/data-requests/${id}/download`)).status).toBe(404);
    const done = await completed(account, id);
    expect(done.body.data.conversations_done).toBe(2);
    const download = await account.api.get(`/v1/data-requests/${id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="data-request-${id}.json"`);
    const ids = download.body.conversations.map((c: { id: string }) => c.id);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(kept);
    expect(JSON.stringify(download.body)).toContain('I live at 12 Elm Street');

    const list = await account.api.get('/v1/data-requests?per_page=1');
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it('an access document bigger than the bus carries (1 MiB) downloads whole', async () => {
    const caller = '+19175550333';
    const ids = [1, 2, 3].map((n) => `long-${n}-${randomUUID()}`);
    // Three calls with ~600 KB of transcript each, posted one by one (a request body is at most 1 MiB).
    for (const id of ids) {
      const segments = Array.from({ length: 1200 }, (_, i) => ({ speaker: i % 2 ? 'caller' : 'agent', text: `${id} line ${i} `.padEnd(480, 'x'), start_ms: i * 1000, end_ms: i * 1000 + 900 }));
      const events = [event('call.started', id, agentId, 0, { caller_number: caller, start_time: at(0) }), event('call.transcript', id, agentId, 40, { segments })];
      expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);
    }
    for (const id of ids) await pollUntil(() => account.api.get(`/v1/conversations/${id}`), (r) => r.status === 200 && r.body.data.has_transcript, 30_000);
    const res = await account.api.post('/v1/data-requests', { type: 'access', caller_number: caller });
    await completed(account, res.body.data.id);
    const download = await account.api.get(`/v1/data-requests/${res.body.data.id}/download`);
    expect(download.status).toBe(200);
    expect(JSON.stringify(download.body).length).toBeGreaterThan(1.5 * 1024 * 1024);
    const conversations = download.body.conversations as Array<{ id: string; content: { transcript: Array<{ text: string }> } }>;
    expect(conversations.map((c) => c.id).sort()).toEqual([...ids].sort());
    for (const c of conversations) expect(c.content.transcript.at(-1)!.text.startsWith(`${c.id} line 1199 `)).toBe(true);
  });
});
