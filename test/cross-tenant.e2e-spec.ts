/**
 * The cross-tenant sweep, generated from the OpenAPI document the gateway serves: every operation that names a
 * resource by id, or filters by agent_id, is called with another account's key on the owner's resources (every
 * transcript format included). Nothing may be revealed (404, never 403, or an empty list) or changed. A new route
 * with an id the sweep does not know how to target fails the test until it is covered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TRANSCRIPT_FORMATS } from '@voice/contracts';
import { signPlatformAWebhook } from '@voice/platform-simulators';
import { openStream } from './support/event-stream.js';
import { openApiValidator, type OpenApiValidator } from './support/openapi.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

describe('cross-tenant sweep over every documented operation', () => {
  let system: RunningSystem;
  let owner: TestAccount;
  let intruder: TestAccount;
  let oa: OpenApiValidator;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    system = await startSystem();
    owner = await system.createAccount({ name: 'Owner' });
    intruder = await system.createAccount({ name: 'Intruder' });
    oa = openApiValidator((await system.anonymous.get('/v1/openapi.json')).body);

    const agent = await owner.api.post('/v1/agents', { name: 'Private line', voice_platform: 'platform_a', system_prompt: 'Owner secrets' });
    expect(agent.status).toBe(201);
    ids.agent = agent.body.data.id;
    const key = await owner.api.post('/v1/api-keys', { scopes: ['agents:read'], name: 'owner key' });
    ids.key = key.body.data.id;
    const at = '2025-05-01T09:00:00Z';
    ids.conversation = 'owner-call-1';
    const events = [
      { id: 'oc-1', type: 'call.started', conversation_id: ids.conversation, agent_id: ids.agent, occurred_at: at, data: { caller_number: '+14155550181', start_time: at } },
      { id: 'oc-2', type: 'call.transcript', conversation_id: ids.conversation, agent_id: ids.agent, occurred_at: at,
        data: { segments: [{ speaker: 'caller', text: 'my account number is 1234', start_ms: 0, end_ms: 900 }] } },
    ];
    expect((await owner.api.post('/v1/call-events', { events })).status).toBe(202);
    await pollUntil(() => owner.api.get(`/v1/conversations/${ids.conversation}`), (r) => r.status === 200 && r.body.data.has_transcript, 10_000);
    // A webhook delivery of the owner's platform_a integration, for the delivery log's routes.
    const webhook = JSON.stringify({ event: 'call_started', call: { call_id: 'owner-call-2', agent_id: agent.body.data.platform_sync.platform_agent_id, start_timestamp: Date.parse(at) } });
    const { webhook_url } = (await owner.api.get('/v1/integrations/platform_a')).body.data;
    const delivered = await fetch(webhook_url, { method: 'POST', body: webhook, headers: { 'content-type': 'application/json', ...signPlatformAWebhook(webhook, system.platforms.webhookSecret) } });
    ids.delivery = ((await delivered.json()) as { data: { delivery_id: string } }).data.delivery_id;
    // Recorded before the tests run: its change published later would reach the live stream opened for another call.
    await pollUntil(() => owner.api.get('/v1/conversations/owner-call-2'), (r) => r.status === 200, 10_000);
    const endpoint = await owner.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/owner-hooks', event_types: ['webhook.test'] });
    expect(endpoint.status).toBe(201);
    ids.endpoint = endpoint.body.data.id;
    // The owner's agent was created before its endpoint existed: its agent.created is recorded all the same.
    const recorded = await pollUntil(() => owner.api.get('/v1/events?type=agent.created'), (r) => r.body.data?.length === 1, 10_000);
    ids.event = recorded.body.data[0].id;
    // An access request of the owner's (an erasure would take the owner's call away from the sweep).
    const request = await owner.api.post('/v1/data-requests', { type: 'access', caller_number: '+14155550181' });
    expect(request.status).toBe(202);
    ids.dataRequest = request.body.data.id;
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  /** Which owner resource an `{id}` route names, by its path; a route missing here fails the sweep. */
  const targetOf = (path: string): string | undefined => {
    if (path.startsWith('/v1/agents/{id}')) return ids.agent;
    if (path.startsWith('/v1/conversations/{id}')) return ids.conversation;
    if (path.startsWith('/v1/api-keys/{id}')) return ids.key;
    if (path.startsWith('/v1/webhook-deliveries/{id}')) return ids.delivery;
    if (path.startsWith('/v1/webhook-endpoints/{id}')) return ids.endpoint;
    if (path.startsWith('/v1/events/{id}')) return ids.event;
    if (path.startsWith('/v1/data-requests/{id}')) return ids.dataRequest;
    return undefined;
  };
  const bodies: Record<string, unknown> = {
    'PATCH /v1/agents/{id}': { name: 'Taken over', status: 'paused' },
    'PATCH /v1/webhook-endpoints/{id}': { url: 'http://127.0.0.1:9/intruder', enabled: false },
  };

  it('answers 404 to another account for every operation on an id, and every transcript format; the owner sees no change', async () => {
    const byId = oa.operations.filter((op) => op.path.includes('{id}'));
    expect(byId.length).toBeGreaterThan(0);
    const before = {
      agent: (await owner.api.get(`/v1/agents/${ids.agent}`)).body.data,
      keys: (await owner.api.get('/v1/api-keys?per_page=100')).body.data.map((k: { id: string }) => k.id).sort(),
      conversation: (await owner.api.get(`/v1/conversations/${ids.conversation}`)).body.data,
      deliveries: (await owner.api.get('/v1/webhook-deliveries')).body.data,
      endpoint: (await owner.api.get(`/v1/webhook-endpoints/${ids.endpoint}`)).body.data,
    };
    const answers: string[] = [];
    for (const op of byId) {
      const name = `${op.method} ${op.path}`;
      const target = targetOf(op.path);
      expect([name, target !== undefined ? 'covered' : 'no target: add it to the sweep']).toEqual([name, 'covered']);
      const path = op.path.replace('{id}', encodeURIComponent(target!));
      const queries = op.path.endsWith('/transcript') ? ['', ...TRANSCRIPT_FORMATS.map((f) => `?format=${f}`)] : [''];
      for (const query of queries) {
        const res = await intruder.api.request(op.method, `${path}${query}`, bodies[name] === undefined ? {} : { body: bodies[name] });
        answers.push(`${name}${query} → ${res.status} ${res.body?.error?.code ?? ''}`.trim());
      }
    }
    expect(answers.filter((a) => !/→ 404 not_found$/.test(a))).toEqual([]);
    expect((await owner.api.get(`/v1/agents/${ids.agent}`)).body.data).toEqual(before.agent);
    expect((await owner.api.get('/v1/api-keys?per_page=100')).body.data.map((k: { id: string }) => k.id).sort()).toEqual(before.keys);
    expect((await owner.api.get(`/v1/conversations/${ids.conversation}`)).body.data).toEqual(before.conversation);
    // No replay happened: the log holds the one delivery, untouched.
    expect((await owner.api.get('/v1/webhook-deliveries')).body.data).toEqual(before.deliveries);
    expect(before.deliveries).toHaveLength(1);
    expect((await owner.api.get(`/v1/webhook-endpoints/${ids.endpoint}`)).body.data).toEqual(before.endpoint);
  });

  it('filters by another account’s agent_id find nothing, and its agent cannot be written to', async () => {
    const withAgentFilter = oa.operations.filter((op) => (op.spec.parameters ?? []).some((p: { name: string; in: string }) => p.in === 'query' && p.name === 'agent_id'));
    expect(withAgentFilter.map((op) => `${op.method} ${op.path}`).sort()).toEqual(['GET /v1/conversations', 'GET /v1/conversations/stats', 'GET /v1/conversations/stream', 'GET /v1/events']);
    for (const op of withAgentFilter) {
      if (op.path.endsWith('/stream')) {
        // Live: the owner's stream sees the owner's next call; the other account's, filtered on the owner's agent, sees nothing.
        const intruding = await openStream(system.baseUrl, intruder.api_key, { query: `agent_id=${ids.agent}` });
        const owning = await openStream(system.baseUrl, owner.api_key, { query: `agent_id=${ids.agent}` });
        expect([op.path, intruding.status, owning.status]).toEqual([op.path, 200, 200]);
        const at = '2025-05-01T09:30:00Z';
        const next = { id: 'oc-live', type: 'call.started', conversation_id: 'owner-call-live', agent_id: ids.agent, occurred_at: at, data: { caller_number: '+14155550181', start_time: at } };
        expect((await owner.api.post('/v1/call-events', { events: [next] })).status).toBe(202);
        await owning.waitFor(1);
        await new Promise((r) => setTimeout(r, 300));
        expect([op.path, owning.events.map((e) => e.data.id), intruding.events]).toEqual([op.path, ['owner-call-live'], []]);
        intruding.close();
        owning.close();
        continue;
      }
      const res = await intruder.api.get(`${op.path}?agent_id=${ids.agent}`);
      if (op.path.endsWith('/stats')) {
        // The owner's agent has conversations; the other account's figures are all zeros.
        expect((await owner.api.get(`${op.path}?agent_id=${ids.agent}`)).body.data.total).toBeGreaterThan(0);
        expect([op.path, res.status, res.body.data]).toEqual([op.path, 200, expect.objectContaining({
          total: 0, by_status: { in_progress: 0, completed: 0, failed: 0, abandoned: 0 }, by_sentiment: { positive: 0, neutral: 0, negative: 0, unknown: 0 },
          by_outcome: {}, top_topics: [], duration: { avg: null, p50: null, p90: null }, timeline: { bucket: 'hour', points: [] }, cost: { total: 0, currency: 'USD' },
        })]);
        expect(res.body.data.duration_histogram.every((b: { count: number }) => b.count === 0)).toBe(true);
        continue;
      }
      expect([op.path, res.status, res.body.data, res.body.meta.total]).toEqual([op.path, 200, [], 0]);
    }
    const at = '2025-05-01T10:00:00Z';
    const forged = await intruder.api.post('/v1/call-events', {
      events: [{ id: 'forged-1', type: 'call.started', conversation_id: ids.conversation, agent_id: ids.agent, occurred_at: at, data: { caller_number: '+14155550182', start_time: at } }],
    });
    expect([forged.status, forged.body.error.code]).toEqual([422, 'unknown_agent']);
    expect((await intruder.api.get('/v1/conversations')).body.meta.total).toBe(0);
    expect((await intruder.api.get('/v1/conversations/stats')).body.data.total).toBe(0);
    expect((await intruder.api.get('/v1/agents')).body.meta.total).toBe(0);
    expect((await intruder.api.get(`/v1/webhook-deliveries?conversation_id=owner-call-2`)).body.meta.total).toBe(0);
  });
});
