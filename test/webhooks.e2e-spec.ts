import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signPlatformAWebhook, signPlatformBWebhook, type PlacedCall } from '@voice/platform-simulators';
import type { ApiResponse } from './support/http.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/**
 * Calls arriving as the platforms deliver them: the bundled simulators place calls on agents the
 * service synced to them, sign each webhook with the integration's secret and deliver it to the
 * integration's webhook_url — retries, duplicates and reordering included — through the real
 * distributed stack (gateway, both services, NATS, PostgreSQL).
 */
describe('platform webhooks', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let other: TestAccount;

  const agentOn = async (owner: TestAccount, platform: 'platform_a' | 'platform_b', name: string) => {
    const res = await owner.api.post('/v1/agents', { name, voice_platform: platform, recording_enabled: true });
    expect(res.status).toBe(201);
    const agent = await pollUntil(
      () => owner.api.get(`/v1/agents/${res.body.data.id}`),
      (r) => typeof r.body.data?.platform_sync?.platform_agent_id === 'string',
      20_000,
    );
    return { id: res.body.data.id as string, platformAgentId: agent.body.data.platform_sync.platform_agent_id as string };
  };
  const integrationOf = async (owner: TestAccount, platform: string) => (await owner.api.get(`/v1/integrations/${platform}`)).body.data;
  const conversationWhen = (owner: TestAccount, id: string, accept: (res: ApiResponse) => boolean) =>
    pollUntil(() => owner.api.get(`/v1/conversations/${encodeURIComponent(id)}`), accept, 20_000);
  const deliveriesOf = async (owner: TestAccount, query: string) => (await owner.api.get(`/v1/webhook-deliveries?${query}`)).body;
  const post = (url: string, body: string | Buffer, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const expectAllDelivered = (call: PlacedCall) => {
    for (const delivery of call.deliveries) expect({ type: delivery.type, delivered: delivery.delivered, last: delivery.attempts.at(-1)?.status }).toEqual({ type: delivery.type, delivered: true, last: 200 });
  };

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
    account = await system.createAccount();
    other = await system.createAccount();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('platform_a: a completed call delivered twice and out of order becomes one complete conversation with cost, latency and analysis', async () => {
    const agent = await agentOn(account, 'platform_a', 'Front desk A');
    const call = await system.platforms.simulators.platformA.placeCall({
      agentId: agent.platformAgentId,
      fromNumber: '+14155550142',
      analysis: { summary: 'Order status given.', sentiment: 'positive', successful: true, outcome: 'order_status_given', topics: ['orders', 'shipping'] },
      chaos: { duplicate: true, reorder: 'end-before-start' },
    });
    expectAllDelivered(call);
    const res = await conversationWhen(account, call.callId, (r) => r.status === 200 && r.body.data.summary !== null);
    const c = res.body.data;
    expect(c).toMatchObject({
      id: call.callId,
      agent_id: agent.id,
      status: 'completed',
      caller_number: '+14155550142',
      sentiment: 'positive',
      outcome: 'order_status_given',
      topics: ['orders', 'shipping'],
      summary: 'Order status given.',
      has_recording: true,
      has_transcript: true,
    });
    expect(c.duration).toBeGreaterThan(0);
    expect(c.technical).toMatchObject({ voice_platform: 'platform_a', platform_call_id: call.callId, end_reason: 'agent_hangup' });
    expect(c.technical.cost.currency).toBe('USD');
    expect(c.technical.cost.amount).toBeGreaterThan(0);
    expect(c.technical.latency.map((l: { component: string }) => l.component).sort()).toEqual(['asr', 'e2e', 'llm', 'tts']);
    // Six turns, each once, in order: the live updates were superseded by the final transcript.
    expect(c.content.transcript).toHaveLength(6);
    const keys = c.content.transcript.map((s: { start_ms: number; text: string }) => `${s.start_ms}:${s.text}`);
    expect(new Set(keys).size).toBe(6);

    const log = await deliveriesOf(account, `conversation_id=${call.callId}`);
    const outcomes = log.data.map((d: { outcome: string }) => d.outcome);
    expect(outcomes.filter((o: string) => o === 'accepted').length).toBeGreaterThanOrEqual(call.deliveries.length / 2);
    expect(outcomes).toContain('duplicate');
    expect(outcomes.every((o: string) => o === 'accepted' || o === 'duplicate')).toBe(true);
  }, 60_000);

  it('platform_b: live final transcripts then the end-of-call report give each line once; partials and ringing are logged as ignored', async () => {
    const agent = await agentOn(account, 'platform_b', 'Front desk B');
    const call = await system.platforms.simulators.platformB.placeCall({ agentId: agent.platformAgentId, fromNumber: null });
    expectAllDelivered(call);
    const res = await conversationWhen(account, call.callId, (r) => r.status === 200 && r.body.data.status === 'completed' && r.body.data.technical.cost !== null);
    const c = res.body.data;
    expect(c).toMatchObject({ status: 'completed', caller_number: null, agent_id: agent.id });
    expect(c.technical).toMatchObject({ platform_call_id: call.callId, end_reason: 'assistant-ended-call' });
    expect(c.content.transcript).toHaveLength(6);
    expect(c.technical.latency.length).toBeGreaterThan(0);
    const ignored = await deliveriesOf(account, `outcome=ignored&platform=platform_b`);
    const reasons = ignored.data.filter((d: { platform_call_id: string }) => d.platform_call_id === call.callId).map((d: { reason: string }) => d.reason);
    expect(reasons.some((r: string) => /partial/i.test(r))).toBe(true);
  }, 60_000);

  it.each([
    ['platform_a', 'busy', { status: 'abandoned', abandonment_reason: 'busy' }],
    ['platform_a', 'no-answer', { status: 'abandoned', abandonment_reason: 'no_answer' }],
    ['platform_a', 'failed', { status: 'failed', failure_reason: 'dial_failed' }],
    ['platform_b', 'caller-hangup', { status: 'abandoned', abandonment_reason: 'caller_hangup' }],
    ['platform_b', 'failed', { status: 'failed', failure_reason: 'twilio-failed-to-connect-call' }],
  ] as const)('%s %s call → %j', async (platform, outcome, expected) => {
    const agent = await agentOn(account, platform, `Status ${platform} ${outcome}`);
    const simulator = platform === 'platform_a' ? system.platforms.simulators.platformA : system.platforms.simulators.platformB;
    const call = await simulator.placeCall({ agentId: agent.platformAgentId, outcome });
    expectAllDelivered(call);
    const res = await conversationWhen(account, call.callId, (r) => r.status === 200 && r.body.data.status !== 'in_progress');
    expect(res.body.data).toMatchObject(expected);
  }, 60_000);

  it('refuses unverified deliveries with one answer, stores none of them, and counts them on the integration', async () => {
    const integration = await integrationOf(account, 'platform_a');
    const body = JSON.stringify({ event: 'call_started', call: { call_id: 'probe-1', agent_id: 'agent_x', start_timestamp: Date.now() } });
    const before = (await deliveriesOf(account, 'per_page=1')).meta.total;
    const wrongSecret = await post(integration.webhook_url, body, signPlatformAWebhook(body, 'not-the-secret'));
    const unknownIntegration = await post(integration.webhook_url.replace(/int_[0-9a-f]+$/, 'int_000000000000000000000000'), body, signPlatformAWebhook(body, system.platforms.webhookSecret));
    const unsigned = await post(integration.webhook_url, body, {});
    const otherPlatformsHeaders = await post(integration.webhook_url, body, signPlatformBWebhook(body, system.platforms.webhookSecret));
    for (const res of [wrongSecret, unknownIntegration, unsigned, otherPlatformsHeaders]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature', message: wrongSecret.body.error.message });
    }
    const stale = await post(integration.webhook_url, body, signPlatformAWebhook(body, system.platforms.webhookSecret, Date.now() - 6 * 60_000));
    const future = await post(integration.webhook_url, body, signPlatformAWebhook(body, system.platforms.webhookSecret, Date.now() + 6 * 60_000));
    expect([stale.status, stale.body.error.code, future.status, future.body.error.code]).toEqual([401, 'stale_timestamp', 401, 'stale_timestamp']);
    // The body was changed after signing (one byte): refused.
    const signed = signPlatformAWebhook(body, system.platforms.webhookSecret);
    expect((await post(integration.webhook_url, body.replace('probe-1', 'probe-2'), signed)).status).toBe(401);
    // Re-serialised JSON (other spacing) no longer matches the signature.
    expect((await post(integration.webhook_url, JSON.stringify(JSON.parse(body), null, 1), signed)).status).toBe(401);

    expect((await deliveriesOf(account, 'per_page=1')).meta.total).toBe(before);
    const after = await integrationOf(account, 'platform_a');
    expect(after.rejected_deliveries_24h).toBe(7);
    expect(after.last_rejection).toMatchObject({ reason: 'invalid_signature' });
  }, 60_000);

  it('a webhook URL naming no registered platform is an unknown path (404 route_not_found), whatever the method; a registered one answers 405 to another method', async () => {
    const integration = await integrationOf(account, 'platform_a');
    const body = JSON.stringify({ event: 'call_started', call: { call_id: 'probe-unknown-platform', agent_id: 'agent_x', start_timestamp: Date.now() } });
    const elsewhere = integration.webhook_url.replace('/platform_a/', '/platform_c/');
    const unknown = await post(elsewhere, body, signPlatformAWebhook(body, system.platforms.webhookSecret));
    expect([unknown.status, unknown.body.error.code, unknown.body.error.message]).toEqual([404, 'route_not_found', `No route matches POST ${new URL(elsewhere).pathname}.`]);
    const read = await fetch(elsewhere).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
    expect([read.status, read.body.error.code]).toEqual([404, 'route_not_found']);
    const wrongMethod = await fetch(integration.webhook_url).then(async (res) => ({ status: res.status, allow: res.headers.get('allow'), body: (await res.json()) as any }));
    expect([wrongMethod.status, wrongMethod.body.error.code, wrongMethod.allow]).toEqual([405, 'method_not_allowed', 'POST, OPTIONS']);
    // Paths match case-insensitively: the platform's URL in capitals is the same route, checked as that platform's.
    const shouted = await post(integration.webhook_url.replace('/platform_a/', '/PLATFORM_A/'), body, {});
    expect([shouted.status, shouted.body.error.code]).toEqual([401, 'invalid_signature']);
  });

  it('a delivery naming a platform agent not linked yet is ignored, and accepted on replay once the agent is linked', async () => {
    const platformA = system.platforms.simulators.platformA;
    const known = new Set(platformA.agents().map((a) => a.agent_id));
    // The platform creates the agent at once but answers slowly: our agent is not linked to it yet.
    // (Under the test's 2 s platform timeout, so the sync is only slowed down, not failed.)
    platformA.faults.delay(1_800);
    let call: PlacedCall;
    let ignored: Array<{ id: string; reason: string }>;
    const creating = account.api.post('/v1/agents', { name: 'Slow to link', voice_platform: 'platform_a' });
    let platformAgent: { agent_id: string } | undefined;
    try {
      platformAgent = await pollUntil(async () => platformA.agents().find((a) => !known.has(a.agent_id)), (a) => a !== undefined, 10_000);
      call = await platformA.placeCall({ agentId: platformAgent!.agent_id, outcome: 'busy' });
      expectAllDelivered(call);
      ignored = (await deliveriesOf(account, 'outcome=ignored&platform=platform_a')).data.filter((d: { platform_call_id: string }) => d.platform_call_id === call.callId);
      expect(ignored.length).toBeGreaterThan(0);
      expect(ignored[0].reason).toMatch(/not linked/);
    } finally {
      platformA.faults.clear('delay');
    }
    const created = await creating;
    await pollUntil(() => account.api.get(`/v1/agents/${created.body.data.id}`), (r) => r.body.data.platform_sync.platform_agent_id === platformAgent!.agent_id, 20_000);
    expect((await account.api.get(`/v1/conversations/${call.callId}`)).status).toBe(404);

    for (const delivery of ignored) {
      const replay = await account.api.post(`/v1/webhook-deliveries/${delivery.id}/replay`);
      expect(replay.status).toBe(202);
      expect(replay.body.data).toMatchObject({ replay_of: delivery.id, outcome: 'accepted' });
    }
    const res = await conversationWhen(account, call.callId, (r) => r.status === 200);
    expect(res.body.data).toMatchObject({ status: 'abandoned', abandonment_reason: 'busy', agent_id: created.body.data.id });
    const original = await account.api.get(`/v1/webhook-deliveries/${ignored[0].id}`);
    expect(original.body.data.last_replay).toMatchObject({ outcome: 'accepted' });

    // Replaying an accepted delivery records nothing twice.
    const again = await account.api.post(`/v1/webhook-deliveries/${ignored[0].id}/replay`);
    expect(again.body.data.outcome).toBe('duplicate');
  }, 60_000);

  it('a delivery signed for one account can never touch another account’s agents', async () => {
    const theirs = await agentOn(other, 'platform_a', 'Their agent');
    const mine = await integrationOf(account, 'platform_a');
    const body = JSON.stringify({
      event: 'call_ended',
      call: { call_id: 'cross-tenant-1', agent_id: theirs.platformAgentId, from_number: '+14155550100', start_timestamp: Date.now() - 60_000, end_timestamp: Date.now(), duration_ms: 60_000, disconnection_reason: 'dial_busy', transcript_object: [] },
    });
    const res = await post(mine.webhook_url, body, signPlatformAWebhook(body, system.platforms.webhookSecret));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ outcome: 'ignored', reason: expect.stringContaining('not linked') });
    expect((await other.api.get('/v1/conversations/cross-tenant-1')).status).toBe(404);
    expect((await account.api.get('/v1/conversations/cross-tenant-1')).status).toBe(404);
    // Neither can the other account read this account's delivery.
    expect((await other.api.get(`/v1/webhook-deliveries/${res.body.data.delivery_id}`)).status).toBe(404);
    expect((await other.api.post(`/v1/webhook-deliveries/${res.body.data.delivery_id}/replay`)).status).toBe(404);
  }, 60_000);

  it('a two-hour call’s 5 MB transcript with word timings is accepted, recorded whole, and its body kept as received', async () => {
    const agent = await agentOn(account, 'platform_a', 'Long calls');
    const start = Date.now() - 2 * 3600_000;
    const turns = Array.from({ length: 1500 }, (_, i) => {
      const words = Array.from({ length: 60 }, (_, w) => ({ word: `word${w}`, start: i * 5 + w * 0.08, end: i * 5 + w * 0.08 + 0.07 }));
      return { role: i % 2 === 0 ? 'agent' : 'user', content: words.map((w) => w.word).join(' ') + ` (turn ${i})`, words };
    });
    const body = JSON.stringify({
      event: 'call_ended',
      call: {
        call_id: 'long-call-1', agent_id: agent.platformAgentId, direction: 'inbound', from_number: '+14155550177', call_status: 'ended',
        start_timestamp: start, end_timestamp: start + 7200_000, duration_ms: 7200_000, disconnection_reason: 'user_hangup', transcript_object: turns,
      },
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(5_000_000);
    const integration = await integrationOf(account, 'platform_a');
    const res = await post(integration.webhook_url, body, signPlatformAWebhook(body, system.platforms.webhookSecret));
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe('accepted');
    // One delivery becomes several call events (start, transcript, end), each recorded as it comes: wait for all.
    const conversation = await conversationWhen(account, 'long-call-1', (r) => r.status === 200 && r.body.data.status === 'completed' && r.body.data.content.transcript.length === 1500);
    expect(conversation.body.data).toMatchObject({ status: 'completed', duration: 7200 });
    const transcript = await account.api.get('/v1/conversations/long-call-1/transcript?format=text');
    expect(transcript.status).toBe(200);
    expect(transcript.text).toContain('(turn 1499)');
    const stored = await account.api.get(`/v1/webhook-deliveries/${res.body.data.delivery_id}`);
    expect(stored.body.data).toMatchObject({ body_bytes: Buffer.byteLength(body), body_encoding: 'utf8' });
    expect(stored.body.data.body).toBe(body);
    expect(stored.body.data.event_ids.length).toBeGreaterThan(2);

    const tooLarge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    const refused = await post(integration.webhook_url, tooLarge, signPlatformAWebhook(tooLarge, system.platforms.webhookSecret));
    expect([refused.status, refused.body.error.code]).toEqual([413, 'payload_too_large']);
  }, 120_000);

  it('the delivery log filters, pages and validates like the other lists', async () => {
    const page = await account.api.get('/v1/webhook-deliveries?per_page=2&outcome=accepted');
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBe(2);
    expect(page.body.meta.per_page).toBe(2);
    expect(page.body.data.every((d: { outcome: string; body?: string }) => d.outcome === 'accepted' && d.body === undefined)).toBe(true);
    expect(page.body.links.next).toContain('outcome=accepted');
    for (const [query, field, code] of [
      ['outcome=lost', 'outcome', 'invalid_parameter'],
      ['platform=platform_c', 'platform', 'invalid_parameter'],
      ['start_date=yesterday', 'start_date', 'invalid_date_format'],
      ['per_page=0', 'per_page', 'invalid_parameter'],
      ['colour=blue', 'colour', 'invalid_parameter'],
    ]) {
      const res = await account.api.get(`/v1/webhook-deliveries?${query}`);
      expect({ query, status: res.status, field: res.body.error?.field, code: res.body.error?.code }).toEqual({ query, status: 400, field, code });
    }
    const future = await account.api.get('/v1/webhook-deliveries?start_date=2999-01-01');
    expect(future.body.meta.total).toBe(0);
    expect((await account.api.get('/v1/webhook-deliveries/whd_000000000000000000000000')).status).toBe(404);
  });

  it('answers 503 (so that the platform retries) when the delivery cannot be made durable, and logs nothing of it', async () => {
    const late = await system.createAccount({ voice_platforms: ['platform_a'] });
    const agent = await agentOn(late, 'platform_a', 'Outage desk');
    const { webhook_url } = await integrationOf(late, 'platform_a');
    const body = JSON.stringify({
      event: 'call_ended',
      call: { call_id: 'outage-call-1', agent_id: agent.platformAgentId, start_timestamp: Date.now() - 30_000, end_timestamp: Date.now(), duration_ms: 30_000, disconnection_reason: 'dial_no_answer', transcript_object: [] },
    });
    // agents-service holds the integration's secret, which this gateway has not needed yet.
    await system.stopService('agents');
    const refused = await fetch(webhook_url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signPlatformAWebhook(body, system.platforms.webhookSecret) } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    expect((await deliveriesOf(late, 'per_page=1')).meta.total).toBe(0);
  }, 60_000);
});
