import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallTurn } from '@voice/platform-simulators';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';
import { startWebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

/**
 * The outbound events made by what happens on the voice platforms, through the real distributed stack and the
 * bundled simulators: a key the platform stops accepting (agent.sync_failed, integration.credentials_invalid) and
 * calls delivered as the platforms' own signed webhooks (conversation.started, conversation.ended with the call's
 * full record, or transcript_url past 256 KiB). Every delivery's signature is verified with standardwebhooks.
 */
interface Received extends ReceivedWebhook {
  event: { id: string; type: string; timestamp: string; data: any };
}

async function startReceiver() {
  const received: Received[] = [];
  const receiver = await startWebhookReceiver({
    path: '/events',
    onRequest: (request) => {
      received.push({ ...request, event: JSON.parse(request.body) });
      return { status: 204 };
    },
  });
  return { ...receiver, received, of: (type: string) => received.filter((r) => r.event.type === type) };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe('outbound events from the voice platforms', () => {
  let system: RunningSystem;
  const receivers: Receiver[] = [];

  /** An account integrated with the simulators and an endpoint of its own, receiving `eventTypes`. */
  const accountWithEndpoint = async (eventTypes: string[]) => {
    const account = await system.createAccount();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await account.api.post('/v1/webhook-endpoints', { url: receiver.url, event_types: eventTypes });
    expect(created.status).toBe(201);
    receiver.useSecret(created.body.data.secret);
    return { account, receiver };
  };

  const syncedAgent = async (owner: TestAccount, name: string) => {
    const res = await owner.api.post('/v1/agents', { name, voice_platform: 'platform_a', recording_enabled: true });
    expect(res.status).toBe(201);
    const agent = await pollUntil(
      () => owner.api.get(`/v1/agents/${res.body.data.id}`),
      (r) => r.body.data?.platform_sync?.state === 'synced',
      20_000,
    );
    return { id: res.body.data.id as string, platformAgentId: agent.body.data.platform_sync.platform_agent_id as string };
  };

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    for (const receiver of receivers) await receiver.close();
  }, 30_000);

  it('a key the platform stops accepting: agent.sync_failed per failure, integration.credentials_invalid once until the integration is configured again', async () => {
    const { account, receiver } = await accountWithEndpoint(['agent.sync_failed', 'integration.credentials_invalid']);
    const simulator = system.platforms.simulators.platformA;
    // The account's own key, accepted when the integration is configured and revoked on the platform afterwards.
    const ownKey = `sim_own_${Date.now()}`;
    const useKey = async (key: string) => {
      simulator.setApiKeys([...simulator.getApiKeys(), key]);
      const put = await account.api.put('/v1/integrations/platform_a', { ...system.platforms.integrationBody('platform_a'), api_key: key });
      expect(put.status).toBe(200);
    };
    const revoke = (key: string) => simulator.setApiKeys(simulator.getApiKeys().filter((k) => k !== key));
    const rename = async (agentId: string, name: string) => expect((await account.api.patch(`/v1/agents/${agentId}`, { name })).status).toBe(200);

    await useKey(ownKey);
    const agent = await syncedAgent(account, 'Revoked desk');
    revoke(ownKey);
    await rename(agent.id, 'Revoked desk 2');
    await pollUntil(async () => receiver.of('agent.sync_failed').length + receiver.of('integration.credentials_invalid').length, (n) => n >= 2, 20_000);
    // A second change meets the same refused key: a new failure, and no second credentials_invalid.
    await rename(agent.id, 'Revoked desk 3');
    await pollUntil(async () => receiver.of('agent.sync_failed').length, (n) => n >= 2, 20_000);

    const failures = receiver.of('agent.sync_failed');
    expect(failures).toHaveLength(2);
    expect(failures.every((r) => r.verified)).toBe(true);
    expect(failures[0].event.data).toEqual({
      agent: expect.objectContaining({ id: agent.id, name: 'Revoked desk 2', voice_platform: 'platform_a', status: 'active' }),
      version: expect.any(Number),
      failure: { code: 'invalid_platform_credentials', message: expect.any(String), permanent: true, platform: 'platform_a', attempt: 1 },
    });
    expect(failures[1].event.data).toMatchObject({
      agent: { name: 'Revoked desk 3' }, version: failures[0].event.data.version + 1, failure: { code: 'invalid_platform_credentials', attempt: 1 },
    });
    const [invalid] = receiver.of('integration.credentials_invalid');
    expect(receiver.of('integration.credentials_invalid')).toHaveLength(1);
    expect(invalid.verified).toBe(true);
    expect(invalid.event.data).toEqual({ platform: 'platform_a', detected_at: expect.any(String), reason: expect.stringContaining('refused the stored API key') });
    // Never a secret: neither key appears anywhere in what was sent.
    for (const r of receiver.received) expect(r.body).not.toContain(ownKey);
    expect((await account.api.get('/v1/integrations/platform_a')).body.data.status).toBe('invalid_credentials');

    // Configured again (a new key), then refused again: the refusal is news again.
    const nextKey = `${ownKey}_next`;
    await useKey(nextKey);
    await pollUntil(() => account.api.get(`/v1/agents/${agent.id}`), (r) => r.body.data?.platform_sync?.state === 'synced', 20_000);
    revoke(nextKey);
    await rename(agent.id, 'Revoked desk 4');
    await pollUntil(async () => receiver.of('integration.credentials_invalid').length, (n) => n >= 2, 20_000);
    expect(receiver.of('integration.credentials_invalid')).toHaveLength(2);
    const listed = await account.api.get('/v1/events?type=integration.credentials_invalid');
    expect(listed.body.data).toHaveLength(2);
  }, 120_000);

  it('a call delivered by platform_a’s signed webhooks: conversation.started, then conversation.ended with the full record and its transcript', async () => {
    const { account, receiver } = await accountWithEndpoint(['conversation.started', 'conversation.ended']);
    const agent = await syncedAgent(account, 'Live desk');
    const turns: CallTurn[] = [
      { role: 'agent', text: 'Thanks for calling, how can I help?', startMs: 0, endMs: 400 },
      { role: 'user', text: 'Where is my order?', startMs: 600, endMs: 900 },
    ];
    const call = await system.platforms.simulators.platformA.placeCall({
      agentId: agent.platformAgentId, turns, durationMs: 2_500, live: true, analysisDelayMs: 200,
    });
    expect(call.deliveries.every((delivery) => delivery.delivered)).toBe(true);
    // Order across events is not promised: conversation.started may still be on its way when conversation.ended lands.
    await pollUntil(async () => [receiver.of('conversation.started').length, receiver.of('conversation.ended').length], ([s, e]) => s >= 1 && e >= 1, 20_000);

    const [started] = receiver.of('conversation.started');
    const [ended] = receiver.of('conversation.ended');
    expect([started?.verified, ended.verified]).toEqual([true, true]);
    expect(started.event.data.conversation).toMatchObject({ id: call.callId, status: 'in_progress', agent_id: agent.id });
    expect(ended.event.data.sequence).toBeGreaterThan(started.event.data.sequence);
    expect(ended.event.data).not.toHaveProperty('transcript_url');
    const detail = (await account.api.get(`/v1/conversations/${encodeURIComponent(call.callId)}`)).body.data;
    // The record as GET /v1/conversations/{id} shows it: the same keys, the transcript included.
    expect(Object.keys(ended.event.data.conversation).sort()).toEqual(Object.keys(detail).sort());
    expect(ended.event.data.conversation).toMatchObject({ id: call.callId, status: 'completed', technical: { voice_platform: 'platform_a', platform_call_id: call.callId } });
    expect(ended.event.data.conversation.content.transcript.map((s: { text: string }) => s.text)).toEqual(turns.map((t) => t.text));
  }, 60_000);

  it('a call whose record passes 256 KiB: conversation.ended leaves the transcript out and transcript_url serves it', async () => {
    const { account, receiver } = await accountWithEndpoint(['conversation.ended']);
    const agent = await syncedAgent(account, 'Long desk');
    // 30 turns of 9,500 characters (a segment may hold 10,000): about 290 KB of transcript. platform_a re-sends the
    // whole transcript after every turn, so more, shorter turns would cost the platform's deliveries quadratically.
    const line = (i: number) => `${i} ${'The caller reads out a very long order reference again. '.repeat(170)}`.slice(0, 9_500);
    const turns: CallTurn[] = Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'user' : 'agent', text: line(i), startMs: i * 2_000, endMs: i * 2_000 + 1_500 }));
    const call = await system.platforms.simulators.platformA.placeCall({ agentId: agent.platformAgentId, turns, recorded: false, delivery: { retries: 0 } });
    expect(call.deliveries.every((delivery) => delivery.delivered)).toBe(true);
    await pollUntil(async () => receiver.of('conversation.ended').length, (n) => n >= 1, 30_000);

    const [ended] = receiver.of('conversation.ended');
    expect(ended.verified).toBe(true);
    expect(Buffer.byteLength(ended.body)).toBeLessThanOrEqual(256 * 1024);
    expect(ended.event.data.conversation).toMatchObject({ id: call.callId, status: 'completed', has_transcript: true });
    expect(ended.event.data.conversation.content).not.toHaveProperty('transcript');
    expect(ended.event.data.transcript_url).toBe(`/v1/conversations/${encodeURIComponent(call.callId)}/transcript`);
    // The platform's last transcript delivery may be recorded just after the end (order across events is not
    // promised; a conversation.updated follows it): the URL serves the whole transcript once it is.
    const transcript = await pollUntil(
      () => account.api.get(ended.event.data.transcript_url),
      (r) => r.status === 200 && r.body.data.segments.length === 30,
      20_000,
    );
    expect(transcript.status).toBe(200);
    expect(transcript.body.data.segments).toHaveLength(30);
    expect(Buffer.byteLength(JSON.stringify(transcript.body.data.segments))).toBeGreaterThan(256 * 1024);
  }, 90_000);
});
