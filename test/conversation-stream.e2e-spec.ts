import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT } from '@voice/contracts';
import { JetStreamStreams } from '@voice/service-kit';
import { connect } from '@nats-io/transport-node';
import { randomBytes, randomUUID } from 'node:crypto';
import { startAgentsService } from '../apps/agents-service/src/app.js';
import { startConversationsService } from '../apps/conversations-service/src/app.js';
import { startGateway, type GatewayOptions, type RunningGateway } from '../apps/api-gateway/src/app.js';
import { createTestDatabase } from './support/database.js';
import { apiClient, type ApiClient } from './support/http.js';
import { openStream } from './support/event-stream.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from './support/nats.js';
import { checkedClient, loadOpenApi, type OpenApiValidator } from './support/openapi.js';
import { configureIntegrations, startTestPlatforms } from './support/platforms.js';
import { pollUntil } from './support/poll.js';
import { startLocalSystem, testIntegrationsOptions, type LocalSystem } from './support/system.js';

jest.setTimeout(60_000);

/**
 * GET /v1/conversations/stream as a client meets it: Server-Sent Events read over HTTP from real gateways, fed
 * through NATS JetStream by conversations-service after its commits (and, in the last block, the one-process mode).
 */

const T0 = Date.parse('2025-05-01T09:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const callEvent = (type: string, conversationId: string, agentId: string, seconds: number, data: object) => ({
  id: `ev-${randomUUID()}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data,
});
const started = (conversationId: string, agentId: string) =>
  callEvent('call.started', conversationId, agentId, 0, { caller_number: '+14155550100', start_time: at(0) });
const ended = (conversationId: string, agentId: string, duration: number) =>
  callEvent('call.ended', conversationId, agentId, duration, { end_time: at(duration), duration, summary: `Call of ${duration} s.`, outcome: 'resolved' });

/**
 * A first call of the agent, listed: conversations-service has learnt the agent (its calls are then recorded at
 * once rather than parked until the agent event arrives), so latency measurements start from a warm system.
 */
async function warmUp(api: ApiClient, agentId: string): Promise<void> {
  const id = `warm-${randomUUID()}`;
  expect((await api.post('/v1/call-events', { events: [started(id, agentId)] })).status).toBe(202);
  await pollUntil(() => api.get(`/v1/conversations?agent_id=${agentId}`), (r) => r.body.data?.some((c: { id: string }) => c.id === id), 15_000, 50);
}

/** The position of an event in its stream (ids are `<stream created ms>-<sequence>`). */
const sequenceOf = (id: string) => Number(id.split('-')[1]);

/** Nothing more arrives on these streams for a while (what "no repeat" and "not seen" are measured against). */
const quietFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Account {
  id: string;
  key: string;
  api: ApiClient;
  agentId: string;
}

const STREAM_LIMITS = { heartbeatMs: 300, perKey: 3, perAccount: 4 };
/** The changes stream of the distributed system keeps this few (created before the apps, which keep an existing stream as it is). */
const KEPT_CHANGES = 40;

describe('live conversation stream over JetStream, two gateway replicas', () => {
  const namespace = randomNamespace();
  const closers: Array<() => Promise<unknown>> = [];
  let gateways: RunningGateway[];
  let oa: OpenApiValidator;
  let acme: Account;
  let globex: Account;
  let gatewayOptions: GatewayOptions;

  async function createAccount(name: string): Promise<Account> {
    const admin = apiClient(gateways[0].url, gatewayOptions.adminToken);
    const created = await admin.post('/v1/admin/accounts', { name, plan: 'starter', agent_limit: 5, voice_platforms: ['platform_b'] });
    expect(created.status).toBe(201);
    const api = checkedClient(apiClient(gateways[0].url, created.body.data.api_key), oa);
    await configureIntegrations(api, platforms, ['platform_b']);
    const agent = await api.post('/v1/agents', { name: `${name} Desk`, voice_platform: 'platform_b' });
    expect(agent.status).toBe(201);
    await warmUp(api, agent.body.data.id);
    return { id: created.body.data.id, key: created.body.data.api_key, api, agentId: agent.body.data.id };
  }

  let platforms: Awaited<ReturnType<typeof startTestPlatforms>>;
  beforeAll(async () => {
    const db = await createTestDatabase('stream');
    closers.push(() => db.drop());
    closers.push(() => deleteNamespaceStreams(namespace));
    platforms = await startTestPlatforms();
    closers.push(() => platforms.stop());
    const natsUrl = testNatsUrl();
    const nc = await connect({ servers: natsUrl });
    await new JetStreamStreams(nc).ensureStream(`${namespace}_${CONVERSATION_CHANGES_STREAM}`, [`${namespace}.${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`], { maxMessages: KEPT_CHANGES });
    await nc.close();
    const agents = await startAgentsService({ databaseUrl: db.url, natsUrl, namespace, ...testIntegrationsOptions() });
    closers.push(() => agents.close());
    const conversations = await startConversationsService({ databaseUrl: db.url, natsUrl, namespace });
    closers.push(() => conversations.close());
    gatewayOptions = {
      port: 0, host: '127.0.0.1', databaseUrl: db.url, natsUrl, namespace, adminToken: `admin_${randomBytes(8).toString('hex')}`, rpcTimeoutMs: 3000,
      conversationStreams: STREAM_LIMITS,
    };
    gateways = [await startGateway(gatewayOptions), await startGateway(gatewayOptions)];
    for (const g of gateways) closers.push(() => g.close());
    oa = await loadOpenApi(gateways[0].url);
    acme = await createAccount('Acme');
    globex = await createAccount('Globex');
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  it('an event accepted through replica 1 reaches a subscriber of replica 2 within 1 s of the 202, as the list shows the conversation', async () => {
    const stream = await openStream(gateways[1].url, acme.key);
    expect(stream.status).toBe(200);
    const conversationId = `conv-${randomUUID()}`;
    const posted = await acme.api.post('/v1/call-events', { events: [started(conversationId, acme.agentId)] });
    expect(posted.status).toBe(202);
    const acceptedAt = Date.now();
    const [event] = await stream.waitFor(1, 5000);
    expect(event.receivedAt - acceptedAt).toBeLessThan(1000);
    expect(event.event).toBe('conversation.created');
    expect(event.id).toMatch(/^[0-9]+-[0-9]+$/);
    const listed = await acme.api.get(`/v1/conversations?agent_id=${acme.agentId}`);
    expect(event.data).toEqual(listed.body.data.find((c: { id: string }) => c.id === conversationId));
    expect(event.data).toMatchObject({ id: conversationId, agent_id: acme.agentId, agent_name: 'Acme Desk', status: 'in_progress' });
    stream.close();
    // The answer as the document describes it (headers, content type) for what was read.
    oa.check('GET', '/v1/conversations/stream', { status: 200, headers: stream.headers, body: stream.text(), text: stream.text() });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });

  it('events of one conversation arrive in order, each newer than the last, ending with the final state', async () => {
    const stream = await openStream(gateways[0].url, acme.key);
    const conversationId = `conv-${randomUUID()}`;
    const steps = [
      started(conversationId, acme.agentId),
      callEvent('call.progress', conversationId, acme.agentId, 10, { duration: 10 }),
      callEvent('call.progress', conversationId, acme.agentId, 20, { duration: 20, sentiment: 'positive' }),
      callEvent('call.progress', conversationId, acme.agentId, 30, { duration: 30, topics: ['billing'] }),
      ended(conversationId, acme.agentId, 40),
    ];
    // Each step through the other replica in turn, one request after the other.
    for (const [i, step] of steps.entries()) {
      const api = checkedClient(apiClient(gateways[i % 2].url, acme.key), oa);
      expect((await api.post('/v1/call-events', { events: [step] })).status).toBe(202);
    }
    await pollUntil(async () => stream.events.at(-1)?.data, (last) => last?.status === 'completed', 10_000, 25);
    const mine = stream.events.filter((e) => e.data.id === conversationId);
    expect(mine[0].event).toBe('conversation.created');
    expect(mine.slice(1).every((e) => e.event === 'conversation.updated')).toBe(true);
    const durations = mine.map((e) => e.data.duration);
    expect(durations).toEqual([...durations].sort((a, b) => a - b));
    const ids = mine.map((e) => sequenceOf(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(mine.at(-1)!.data).toMatchObject({ status: 'completed', duration: 40, sentiment: 'positive', topics: ['billing'], outcome: 'resolved', summary: 'Call of 40 s.' });
    stream.close();
  });

  it('resumes after Last-Event-ID on the other replica with nothing missed and nothing repeated', async () => {
    const first = await openStream(gateways[0].url, acme.key);
    const calls = Array.from({ length: 5 }, () => `conv-${randomUUID()}`);
    for (const id of calls.slice(0, 3)) await acme.api.post('/v1/call-events', { events: [started(id, acme.agentId)] });
    await first.waitFor(3);
    first.close();
    const resumeAfter = first.events[0].id;
    // While nobody listens.
    for (const id of calls.slice(3)) await acme.api.post('/v1/call-events', { events: [started(id, acme.agentId)] });
    await pollUntil(() => acme.api.get(`/v1/conversations?status=in_progress&per_page=100`), (r) => calls.every((id) => r.body.data.some((c: { id: string }) => c.id === id)), 10_000);

    const resumed = await openStream(gateways[1].url, acme.key, { lastEventId: resumeAfter });
    expect(resumed.status).toBe(200);
    await resumed.waitFor(4);
    await quietFor(500);
    // Exactly the events after the one resumed from: those the first stream had read after it, in the same order
    // with the same ids, then the two recorded meanwhile (calls of different conversations carry no order between them).
    expect(resumed.events.slice(0, 2).map((e) => [e.id, e.data.id])).toEqual(first.events.slice(1).map((e) => [e.id, e.data.id]));
    expect(resumed.events.slice(2).map((e) => e.data.id).sort()).toEqual(calls.slice(3).sort());
    expect(new Set(resumed.events.map((e) => e.data.id))).toEqual(new Set(calls.filter((id) => id !== first.events[0].data.id)));
    expect(resumed.events.every((e) => sequenceOf(e.id) > sequenceOf(resumeAfter))).toBe(true);
    resumed.close();
  });

  it('refuses a Last-Event-ID it never sent or cannot read, in the error envelope with field Last-Event-ID', async () => {
    const api = checkedClient(apiClient(gateways[1].url, acme.key), oa);
    const [createdMs, sequence] = (await (async () => {
      const probe = await openStream(gateways[1].url, acme.key);
      const id = `conv-${randomUUID()}`;
      await acme.api.post('/v1/call-events', { events: [started(id, acme.agentId)] });
      const [event] = await probe.waitFor(1);
      probe.close();
      return event.id.split('-').map(Number);
    })());
    // Ahead of the stream, of an earlier stream (sequences started again), of a later one, and not an id at all.
    for (const id of [`${createdMs}-${sequence + 1000}`, `${createdMs - 1}-${sequence}`, `${createdMs + 1}-1`, '999999999', 'abc', '-3']) {
      const refused = await api.get('/v1/conversations/stream', { 'Last-Event-ID': id });
      expect([id, refused.status, refused.body.error]).toEqual([id, 400, expect.objectContaining({ type: 'invalid_request', code: 'invalid_parameter', field: 'Last-Event-ID' })]);
    }
  });

  it('refuses to resume after an event the bus no longer keeps, rather than skip what was dropped', async () => {
    const stream = await openStream(gateways[0].url, globex.key);
    const calls = Array.from({ length: KEPT_CHANGES + 5 }, () => `conv-${randomUUID()}`);
    // In a few requests, each read before the next: one burst larger than what the stream keeps would be trimmed
    // before the reader got to it.
    for (let from = 0; from < calls.length; from += 15) {
      const chunk = calls.slice(from, from + 15);
      expect((await globex.api.post('/v1/call-events', { events: chunk.map((id) => started(id, globex.agentId)) })).status).toBe(202);
      await stream.waitFor(from + chunk.length);
    }
    stream.close();
    const api = checkedClient(apiClient(gateways[1].url, globex.key), oa);
    const tooOld = await api.get('/v1/conversations/stream', { 'Last-Event-ID': stream.events[0].id });
    expect([tooOld.status, tooOld.body.error]).toEqual([400, expect.objectContaining({ code: 'invalid_parameter', field: 'Last-Event-ID', message: expect.stringMatching(/no longer kept/) })]);
    // The newest ones still resume.
    const recent = await openStream(gateways[1].url, globex.key, { lastEventId: stream.events.at(-3)!.id });
    await recent.waitFor(2);
    await quietFor(300);
    expect(recent.events.map((e) => e.data.id)).toEqual(stream.events.slice(-2).map((e) => e.data.id));
    recent.close();
  });

  it('filters by agent_id and status as the list does, and refuses what the list refuses with the same error', async () => {
    const second = await acme.api.post('/v1/agents', { name: 'Acme Night', voice_platform: 'platform_b' });
    expect(second.status).toBe(201);
    const night = second.body.data.id;
    await warmUp(acme.api, night);
    const byAgent = await openStream(gateways[0].url, acme.key, { query: `agent_id=${night}` });
    const completed = await openStream(gateways[1].url, acme.key, { query: 'status=completed' });
    const dayCall = `conv-${randomUUID()}`;
    const nightCall = `conv-${randomUUID()}`;
    await acme.api.post('/v1/call-events', { events: [started(dayCall, acme.agentId), started(nightCall, night)] });
    await acme.api.post('/v1/call-events', { events: [ended(dayCall, acme.agentId, 30)] });
    await byAgent.waitFor(1);
    await completed.waitFor(1);
    await quietFor(500);
    expect(byAgent.events.map((e) => [e.data.id, e.data.status])).toEqual([[nightCall, 'in_progress']]);
    expect(completed.events.map((e) => [e.data.id, e.data.status])).toEqual([[dayCall, 'completed']]);
    byAgent.close();
    completed.close();

    const withoutRequestId = ({ request_id: _, ...error }: { request_id?: string }) => error;
    for (const query of ['status=done', 'agent_id=', 'agent_id=%20', 'status=completed&status=failed', `agent_id=${'x'.repeat(201)}`]) {
      const list = await acme.api.get(`/v1/conversations?${query}`);
      const stream = await acme.api.get(`/v1/conversations/stream?${query}`);
      expect([query, list.status, stream.status]).toEqual([query, 400, 400]);
      expect([query, withoutRequestId(stream.body.error)]).toEqual([query, withoutRequestId(list.body.error)]);
    }
    // The list's other filters select nothing on a stream: refused as unknown, as the list refuses what it does not know.
    const unknown = await acme.api.get('/v1/conversations/stream?sentiment=positive');
    expect([unknown.status, unknown.body.error]).toEqual([400, expect.objectContaining({ code: 'invalid_parameter', field: 'sentiment', valid_values: ['agent_id', 'status'] })]);
  });

  it('an account only ever sees its own conversations, even naming another account’s agent', async () => {
    const globexAll = await openStream(gateways[1].url, globex.key);
    const globexOnAcmeAgent = await openStream(gateways[0].url, globex.key, { query: `agent_id=${acme.agentId}` });
    const acmeAll = await openStream(gateways[0].url, acme.key);
    const acmeCall = `conv-${randomUUID()}`;
    const globexCall = `conv-${randomUUID()}`;
    await acme.api.post('/v1/call-events', { events: [started(acmeCall, acme.agentId)] });
    await globex.api.post('/v1/call-events', { events: [started(globexCall, globex.agentId)] });
    await acmeAll.waitFor(1);
    await globexAll.waitFor(1);
    await quietFor(500);
    expect(acmeAll.events.map((e) => e.data.id)).toEqual([acmeCall]);
    expect(globexAll.events.map((e) => e.data.id)).toEqual([globexCall]);
    expect(globexOnAcmeAgent.events).toEqual([]);
    for (const s of [globexAll, globexOnAcmeAgent, acmeAll]) s.close();
  });

  it('sends a heartbeat comment on an idle stream', async () => {
    const stream = await openStream(gateways[0].url, globex.key);
    await pollUntil(async () => stream.comments.filter((c) => c === 'heartbeat').length, (n) => n >= 2, 5_000, 25);
    expect(stream.events).toEqual([]);
    stream.close();
  });

  it('holds at most perKey streams per API key across replicas: the next is 429 rate_limited; closing one frees its place', async () => {
    const key = (await acme.api.post('/v1/api-keys', { name: 'dashboard', scopes: ['conversations:read'] })).body.data.api_key;
    const open = [await openStream(gateways[0].url, key), await openStream(gateways[1].url, key), await openStream(gateways[0].url, key)];
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    const api = checkedClient(apiClient(gateways[1].url, key), oa);
    const refused = await api.get('/v1/conversations/stream');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited', limit: STREAM_LIMITS.perKey, current: STREAM_LIMITS.perKey });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    open[0].close();
    const again = await pollUntil(() => openStream(gateways[1].url, key), (s) => s.status === 200, 5_000, 100);
    again.close();
    for (const s of open) s.close();
  });

  it('holds at most perAccount streams per account whatever its keys', async () => {
    const initech = await createAccount('Initech');
    const keys = [];
    for (const name of ['wallboard', 'reports']) keys.push((await initech.api.post('/v1/api-keys', { name, scopes: ['conversations:read'] })).body.data.api_key);
    const open = [
      await openStream(gateways[0].url, keys[0]), await openStream(gateways[1].url, keys[0]), await openStream(gateways[0].url, keys[1]), await openStream(gateways[1].url, initech.key),
    ];
    expect(open.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const refused = await checkedClient(apiClient(gateways[0].url, keys[1]), oa).get('/v1/conversations/stream');
    expect([refused.status, refused.body.error]).toEqual([429, expect.objectContaining({ code: 'rate_limited', limit: STREAM_LIMITS.perAccount, current: STREAM_LIMITS.perAccount })]);
    expect(refused.body.error.message).toMatch(/per account/);
    for (const s of open) s.close();
  });

  it('ends its streams when the gateway shuts down, telling clients to reconnect; the gateway does not wait for them', async () => {
    const third = await startGateway(gatewayOptions);
    const stream = await openStream(third.url, globex.key);
    expect(stream.status).toBe(200);
    const started = Date.now();
    await third.close();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stream.text()).toMatch(/retry: 1000\n\n: the gateway is shutting down; reconnect with Last-Event-ID\n\n$/);
    // Its lease was released before the gateway let go of the database: the key has all its places again.
    const again = [];
    for (let i = 0; i < STREAM_LIMITS.perKey; i++) again.push(await openStream(gateways[i % 2].url, globex.key));
    expect(again.map((s) => s.status)).toEqual(Array(STREAM_LIMITS.perKey).fill(200));
    for (const s of again) s.close();
  });
});

describe('live conversation stream in one-process mode (in-process streams)', () => {
  let system: LocalSystem;
  let url: string;
  let account: Account;

  beforeAll(async () => {
    system = await startLocalSystem('stream_local', { conversationStreams: STREAM_LIMITS });
    url = system.baseUrl;
    const created = await apiClient(url, system.adminToken).post('/v1/admin/accounts', { name: 'Local', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_b'] });
    const api = apiClient(url, created.body.data.api_key);
    await configureIntegrations(api, system.platforms, ['platform_b']);
    const agent = await api.post('/v1/agents', { name: 'Local Desk', voice_platform: 'platform_b' });
    account = { id: created.body.data.id, key: created.body.data.api_key, api, agentId: agent.body.data.id };
    await warmUp(api, account.agentId);
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('delivers within 1 s of the 202 and resumes after Last-Event-ID', async () => {
    const stream = await openStream(url, account.key);
    const first = `conv-${randomUUID()}`;
    expect((await account.api.post('/v1/call-events', { events: [started(first, account.agentId)] })).status).toBe(202);
    const acceptedAt = Date.now();
    const [event] = await stream.waitFor(1, 5000);
    expect(event.receivedAt - acceptedAt).toBeLessThan(1000);
    expect(event.data).toMatchObject({ id: first, status: 'in_progress', agent_name: 'Local Desk' });
    stream.close();
    await account.api.post('/v1/call-events', { events: [ended(first, account.agentId, 12)] });
    const resumed = await openStream(url, account.key, { lastEventId: event.id });
    const [next] = await resumed.waitFor(1, 5000);
    await quietFor(300);
    expect(resumed.events).toHaveLength(1);
    expect([next.event, next.data.status, sequenceOf(next.id) > sequenceOf(event.id)]).toEqual(['conversation.updated', 'completed', true]);
    resumed.close();
  });
});
