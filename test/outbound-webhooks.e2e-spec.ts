import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_DELIVERY_WORKER } from '../apps/notifications-service/src/deliver-events/delivery.worker.js';
import { openApiValidator } from './support/openapi.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';
import { startWebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

/** One request the receiver got, and whether its signature verified with the endpoint's secret (standardwebhooks). */
interface Received extends ReceivedWebhook {
  event: { id: string; type: string; timestamp: string; data: any };
}

/** A receiver on loopback: answers `failures` requests with 500, then 200; verifies every signature. */
async function startReceiver(options: { failures?: number } = {}) {
  const received: Received[] = [];
  let failures = options.failures ?? 0;
  const receiver = await startWebhookReceiver({
    path: '/hooks',
    onRequest: (request) => {
      received.push({ ...request, event: JSON.parse(request.body) });
      if (failures > 0) {
        failures--;
        return { status: 500, body: 'not now' };
      }
      return { status: 200, body: 'ok' };
    },
  });
  return {
    url: receiver.url,
    received,
    useSecret: receiver.useSecret,
    failNext: (count: number) => (failures = count),
    of: (type: string) => received.filter((r) => r.event.type === type),
    close: receiver.close,
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

describe('outbound events: signed webhooks to the account’s endpoints', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let other: TestAccount;
  const receivers: Receiver[] = [];

  const receiverFor = async (owner: TestAccount, body: Record<string, unknown> = {}, failures = 0) => {
    const receiver = await startReceiver({ failures });
    receivers.push(receiver);
    const created = await owner.api.post('/v1/webhook-endpoints', { url: receiver.url, ...body });
    expect(created.status).toBe(201);
    receiver.useSecret(created.body.data.secret);
    return { receiver, endpoint: created.body.data };
  };

  beforeAll(async () => {
    system = await startSystem({ webhookRetryScheduleMs: [0, 300, 300, 300] });
    account = await system.createAccount();
    other = await system.createAccount();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    for (const receiver of receivers) await receiver.close();
  }, 30_000);

  it('creates, reads, lists, updates and deletes endpoints; the secret only on create and GET …/secret', async () => {
    const { endpoint } = await receiverFor(account, { description: 'CRM', event_types: ['agent.created'] });
    expect(endpoint).toMatchObject({ description: 'CRM', event_types: ['agent.created'], agent_ids: null, enabled: true, status: 'active' });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint.secret_hint).toBe(endpoint.secret.slice(-4));
    const read = await account.api.get(`/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}/secret`)).body.data).toEqual({ secret: endpoint.secret });
    expect((await account.api.get('/v1/webhook-endpoints')).body.data.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    const disabled = await account.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: false, event_types: null });
    expect(disabled.body.data).toMatchObject({ enabled: false, status: 'disabled', event_types: null, disabled_reason: 'disabled by the account' });
    expect((await account.api.delete(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
  });

  it('refuses what an endpoint may not be, each with its field', async () => {
    const refused = async (body: unknown) => (await account.api.post('/v1/webhook-endpoints', body)).body.error;
    expect(await refused({ url: 'https://example.com/', event_types: ['call.ended'] })).toMatchObject({
      code: 'invalid_parameter', field: 'event_types', valid_values: expect.arrayContaining(['conversation.ended', 'agent.created']),
    });
    expect(await refused({ url: 'http://169.254.169.254/latest/meta-data' })).toMatchObject({ code: 'invalid_parameter', field: 'url' });
    expect(await refused({ url: 'https://user:pw@example.com/' })).toMatchObject({ code: 'invalid_parameter', field: 'url' });
    expect(await refused({})).toMatchObject({ code: 'missing_required_field', field: 'url' });
    // Another account's endpoint is not found, whatever the route.
    const { endpoint } = await receiverFor(other, { event_types: ['webhook.test'] });
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}/secret`)).status).toBe(404);
    expect((await account.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: false })).status).toBe(404);
    expect((await account.api.delete(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
  });

  it('at most 20 endpoints per account: the 21st is 403 quota_exceeded with limit and current', async () => {
    const crowded = await system.createAccount({ integrations: false });
    for (let i = 0; i < 20; i++) expect((await crowded.api.post('/v1/webhook-endpoints', { url: `http://127.0.0.1:9/${i}` })).status).toBe(201);
    const refused = await crowded.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/21' });
    expect([refused.status, refused.body.error]).toEqual([403, expect.objectContaining({ code: 'quota_exceeded', limit: 20, current: 20 })]);
  }, 30_000);

  it('an agent created is agent.created at the endpoint, signed (standardwebhooks verifies it); another account’s agents never reach it', async () => {
    const { receiver } = await receiverFor(account, { event_types: ['agent.created', 'agent.updated', 'agent.deleted'] });
    const { receiver: othersReceiver } = await receiverFor(other, { event_types: ['agent.created'] });
    const agent = await account.api.post('/v1/agents', { name: 'Webhook desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const othersAgent = await other.api.post('/v1/agents', { name: 'Other desk', voice_platform: 'platform_a' });
    expect(othersAgent.status).toBe(201);

    await pollUntil(async () => receiver.of('agent.created').length + othersReceiver.of('agent.created').length, (n) => n >= 2, 15_000);
    const [created] = receiver.of('agent.created');
    expect(created.verified).toBe(true);
    expect(created.event.data.agent).toMatchObject({ id: agent.body.data.id, name: 'Webhook desk' });
    expect(created.headers['webhook-id']).toBe(created.event.id);
    expect(created.event.id).toMatch(/^evt_/);
    expect(othersReceiver.of('agent.created').map((r) => r.event.data.agent.id)).toEqual([othersAgent.body.data.id]);
    expect(receiver.received.map((r) => r.event.data.agent?.id)).not.toContain(othersAgent.body.data.id);

    expect((await account.api.delete(`/v1/agents/${agent.body.data.id}`)).status).toBe(204);
    await pollUntil(async () => receiver.of('agent.deleted').length, (n) => n >= 1, 15_000);
    expect(receiver.of('agent.deleted').map((r) => [r.event.data.agent.id, r.verified])).toEqual([[agent.body.data.id, true]]);
  }, 40_000);

  it('retries a failing endpoint on the schedule with the same webhook-id, until it answers 2xx', async () => {
    const { receiver } = await receiverFor(account, { event_types: ['agent.created'] }, 2);
    const agent = await account.api.post('/v1/agents', { name: 'Retry desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const attempts = await pollUntil(async () => receiver.of('agent.created'), (r) => r.length >= 3, 15_000);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(attempts.every((r) => r.verified)).toBe(true);
    // Delivered: no fourth attempt comes.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.of('agent.created')).toHaveLength(3);
  }, 30_000);

  it('isolation: an endpoint that never answers holds at most its cap of attempts, and another endpoint’s deliveries arrive meanwhile', async () => {
    const owner = await system.createAccount();
    const hanging: Array<import('node:http').ServerResponse> = [];
    const stuck = createServer((_req, res) => void hanging.push(res));
    await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
    // More events than the cap (WEBHOOK_ENDPOINT_CONCURRENCY's default), so the cap is what stops the attempts.
    const cap = DEFAULT_DELIVERY_WORKER.perEndpointConcurrency;
    const events = cap + 4;
    try {
      const stuckUrl = `http://127.0.0.1:${(stuck.address() as AddressInfo).port}/never`;
      expect((await owner.api.post('/v1/webhook-endpoints', { url: stuckUrl, event_types: ['agent.created'] })).status).toBe(201);
      const { receiver } = await receiverFor(owner, { event_types: ['agent.created'] });
      const started = Date.now();
      const created = await Promise.all(
        Array.from({ length: events }, (_, i) => owner.api.post('/v1/agents', { name: `Isolated desk ${i}`, voice_platform: 'platform_a' })),
      );
      expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
      const arrived = await pollUntil(async () => receiver.of('agent.created').length, (n) => n >= events, 10_000);
      expect(arrived).toBe(events);
      // Within the hanging endpoint's 15 s deadline (its first attempt came after `started`): its attempts did not
      // hold the others up.
      expect(Date.now() - started).toBeLessThan(14_000);
      expect(await pollUntil(async () => hanging.length, (n) => n >= cap, 5_000)).toBe(cap);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hanging.length).toBe(cap);
    } finally {
      stuck.closeAllConnections();
      stuck.close();
    }
  }, 30_000);

  it('the delivery log shows every attempt; resend attempts again now with the same webhook-id', async () => {
    const { receiver, endpoint } = await receiverFor(account, { event_types: ['agent.deleted'] }, 1);
    const agent = await account.api.post('/v1/agents', { name: 'Log desk', voice_platform: 'platform_a' });
    expect((await account.api.delete(`/v1/agents/${agent.body.data.id}`)).status).toBe(204);
    await pollUntil(async () => receiver.of('agent.deleted').length, (n) => n >= 2, 15_000);
    const base = `/v1/webhook-endpoints/${endpoint.id}/deliveries`;
    const listed = await pollUntil(() => account.api.get(`${base}?status=succeeded`), (r) => r.body.data?.length === 1, 10_000);
    const [delivery] = listed.body.data;
    expect(delivery).toMatchObject({ endpoint_id: endpoint.id, event_type: 'agent.deleted', status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect((await account.api.get(`${base}?status=failed`)).body.data).toEqual([]);
    const detail = await account.api.get(`${base}/${delivery.id}`);
    expect(detail.body.data.attempts.map((a: { status_code: number; response_body: string }) => [a.status_code, a.response_body])).toEqual([[500, 'not now'], [200, 'ok']]);
    expect(detail.body.data.attempts.every((a: { duration_ms: number }) => a.duration_ms >= 0)).toBe(true);

    const resent = await account.api.post(`${base}/${delivery.id}/resend`, {});
    expect([resent.status, resent.body.data.status]).toEqual([202, 'pending']);
    await pollUntil(async () => receiver.of('agent.deleted').length, (n) => n >= 3, 10_000);
    const ids = receiver.of('agent.deleted').map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    const after = await pollUntil(() => account.api.get(`${base}/${delivery.id}`), (r) => r.body.data.status === 'succeeded', 10_000);
    expect(after.body.data.attempts).toHaveLength(3);
    expect((await account.api.get(`${base}/dlv_000000000000000000000000`)).status).toBe(404);
    expect((await account.api.post(`${base}/dlv_000000000000000000000000/resend`, {})).status).toBe(404);
    expect((await account.api.get(`${base}?status=lost`)).body.error).toMatchObject({ field: 'status', valid_values: ['pending', 'succeeded', 'failed'] });
  }, 40_000);

  it('a delivery failed after the last attempt of the schedule is attempted again by recover', async () => {
    const { receiver, endpoint } = await receiverFor(account, { event_types: ['agent.created'] }, 1_000);
    const since = new Date().toISOString();
    const agent = await account.api.post('/v1/agents', { name: 'Recover desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const base = `/v1/webhook-endpoints/${endpoint.id}`;
    const failed = await pollUntil(() => account.api.get(`${base}/deliveries?status=failed`), (r) => r.body.data?.length === 1, 15_000);
    expect(failed.body.data[0]).toMatchObject({ attempt_count: 4, next_attempt_at: null });
    expect(receiver.of('agent.created')).toHaveLength(4);

    receiver.failNext(0);
    expect((await account.api.post(`${base}/recover`, { since: 'yesterday' })).body.error).toMatchObject({ code: 'invalid_date_format', field: 'since' });
    const recovered = await account.api.post(`${base}/recover`, { since });
    expect([recovered.status, recovered.body.data]).toEqual([202, { deliveries: 1 }]);
    await pollUntil(async () => receiver.of('agent.created').length, (n) => n >= 5, 10_000);
    const done = await pollUntil(() => account.api.get(`${base}/deliveries?status=succeeded`), (r) => r.body.data?.length === 1, 10_000);
    expect(done.body.data[0].attempt_count).toBe(5);
  }, 40_000);

  it('rotate-secret: both secrets verify during the overlap, only the new one after', async () => {
    const { receiver, endpoint } = await receiverFor(account, { event_types: ['agent.created'] });
    const rotated = await account.api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(endpoint.secret);
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.data.secret_hint).toBe(fresh.slice(-4));
    expect((await account.api.get(`/v1/webhook-endpoints/${endpoint.id}/secret`)).body.data.secret).toBe(fresh);
    const verifies = (secret: string, r: Received) => {
      try {
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };

    expect((await account.api.post('/v1/agents', { name: 'Rotation desk 1', voice_platform: 'platform_a' })).status).toBe(201);
    const [during] = await pollUntil(async () => receiver.of('agent.created'), (r) => r.length >= 1, 10_000);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(endpoint.secret, during), verifies(fresh, during)]).toEqual([true, true]);

    await new Promise((resolve) => setTimeout(resolve, 8_200)); // the test systems' overlap: 8 s
    expect((await account.api.post('/v1/agents', { name: 'Rotation desk 2', voice_platform: 'platform_a' })).status).toBe(201);
    const [, after] = await pollUntil(async () => receiver.of('agent.created'), (r) => r.length >= 2, 10_000);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect([verifies(endpoint.secret, after), verifies(fresh, after)]).toEqual([false, true]);
  }, 30_000);

  it('test: a webhook.test event now, whatever the endpoint’s event types, answered with the attempt’s outcome', async () => {
    const { receiver, endpoint } = await receiverFor(account, { event_types: ['conversation.ended'] });
    const tested = await account.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ succeeded: true, status_code: 200, error: null, response_body: 'ok' });
    expect(receiver.of('webhook.test').map((r) => [r.event.id, r.verified, r.event.data])).toEqual([[tested.body.data.event_id, true, { endpoint_id: endpoint.id }]]);
    const logged = await account.api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${tested.body.data.delivery_id}`);
    expect(logged.body.data).toMatchObject({ status: 'succeeded', attempt_count: 1, event_type: 'webhook.test' });

    const unreachable = (await account.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/closed' })).body.data;
    const failed = await account.api.post(`/v1/webhook-endpoints/${unreachable.id}/test`, {});
    expect(failed.body.data).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^network/) });
    expect((await other.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, {})).status).toBe(404);
  });

  it('a call becomes conversation.started then conversation.ended, each with its sequence', async () => {
    const { receiver } = await receiverFor(account, { event_types: ['conversation.started', 'conversation.ended'] });
    const agent = await account.api.post('/v1/agents', { name: 'Call desk', voice_platform: 'platform_a' });
    const agentId = agent.body.data.id;
    const started = { id: 'ow-1', type: 'call.started', conversation_id: 'conv-outbound', agent_id: agentId, occurred_at: at(0), data: { caller_number: '+14155550100', start_time: at(0) } };
    expect((await account.api.post('/v1/call-events', { events: [started] })).status).toBe(202);
    await pollUntil(async () => receiver.of('conversation.started').length, (n) => n >= 1, 15_000);
    const ended = { id: 'ow-2', type: 'call.ended', conversation_id: 'conv-outbound', agent_id: agentId, occurred_at: at(60),
      data: { end_time: at(60), duration: 60, summary: 'Booked.', sentiment: 'positive', outcome: 'appointment_booked', topics: ['booking'] } };
    expect((await account.api.post('/v1/call-events', { events: [ended] })).status).toBe(202);
    await pollUntil(async () => receiver.of('conversation.ended').length, (n) => n >= 1, 15_000);
    const [start] = receiver.of('conversation.started');
    const [end] = receiver.of('conversation.ended');
    expect([start.verified, end.verified]).toEqual([true, true]);
    expect(start.event.data.conversation).toMatchObject({ id: 'conv-outbound', status: 'in_progress' });
    expect(end.event.data.conversation).toMatchObject({ id: 'conv-outbound', status: 'completed', agent_id: agentId });
    expect(end.event.data.sequence).toBeGreaterThan(start.event.data.sequence);

    // GET /v1/events: the same bodies, newest first, filtered; another account sees none of them.
    const events = await account.api.get('/v1/events?conversation_id=conv-outbound');
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['conversation.ended', 'conversation.started']);
    expect(events.body.data[0]).toEqual(end.event);
    expect((await account.api.get(`/v1/events/${start.event.id}`)).body.data).toEqual(start.event);
    expect((await account.api.get(`/v1/events?type=conversation.ended&agent_id=${agentId}`)).body.data.map((e: { id: string }) => e.id)).toEqual([end.event.id]);
    expect((await account.api.get('/v1/events?type=call.ended')).body.error).toMatchObject({ field: 'type', valid_values: expect.arrayContaining(['conversation.ended']) });
    expect((await other.api.get(`/v1/events/${start.event.id}`)).status).toBe(404);
    expect((await other.api.get('/v1/events?conversation_id=conv-outbound')).body.data).toEqual([]);
  }, 40_000);

  it('every body an endpoint received is what the OpenAPI webhooks section documents for its type', async () => {
    const oa = openApiValidator((await system.anonymous.get('/v1/openapi.json')).body);
    const bodies = receivers.flatMap((receiver) => receiver.received.map((r) => r.event));
    expect(new Set(bodies.map((b) => b.type)).size).toBeGreaterThanOrEqual(5);
    expect(bodies.map((body) => oa.webhookBodyProblem(body)).filter(Boolean)).toEqual([]);
  });
});

describe('outbound events: an endpoint that keeps failing is disabled', () => {
  let system: RunningSystem;
  let account: TestAccount;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // One attempt per delivery, and disabled after 2 failed deliveries in a row.
    system = await startSystem({ webhookRetryScheduleMs: [0], webhookDisableAfter: 2 });
    account = await system.createAccount();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    for (const receiver of receivers) await receiver.close();
  }, 30_000);

  it('after the threshold of failed deliveries in a row: disabled with its reason, and the account’s other endpoints get webhook_endpoint.disabled', async () => {
    const failing = await startReceiver({ failures: 1_000 });
    const watching = await startReceiver();
    receivers.push(failing, watching);
    const broken = (await account.api.post('/v1/webhook-endpoints', { url: failing.url, event_types: ['agent.created'] })).body.data;
    const watcher = (await account.api.post('/v1/webhook-endpoints', { url: watching.url, event_types: ['webhook_endpoint.disabled'] })).body.data;
    failing.useSecret(broken.secret);
    watching.useSecret(watcher.secret);

    for (const name of ['Failing desk 1', 'Failing desk 2']) expect((await account.api.post('/v1/agents', { name, voice_platform: 'platform_a' })).status).toBe(201);
    const [told] = await pollUntil(async () => watching.of('webhook_endpoint.disabled'), (r) => r.length >= 1, 15_000);
    expect(told.verified).toBe(true);
    expect(told.event.data).toEqual({ endpoint_id: broken.id, url: broken.url, reason: '2 deliveries failed in a row' });
    const disabled = (await account.api.get(`/v1/webhook-endpoints/${broken.id}`)).body.data;
    expect(disabled).toMatchObject({ enabled: false, status: 'disabled', disabled_reason: '2 deliveries failed in a row', deliveries_last_24h: { succeeded: 0, failed: 2 } });

    // Disabled: a new event is not attempted; enabled again, it is active with a fresh streak.
    expect((await account.api.post('/v1/agents', { name: 'Failing desk 3', voice_platform: 'platform_a' })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(failing.of('agent.created')).toHaveLength(2);
    expect((await account.api.patch(`/v1/webhook-endpoints/${broken.id}`, { enabled: true })).body.data).toMatchObject({ status: 'active', disabled_reason: null });
  }, 40_000);
});
