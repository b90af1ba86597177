import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signPlatformAWebhook, signPlatformBWebhook } from '@voice/platform-simulators';
import type { ApiResponse } from './support/http.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/**
 * Every fact a platform sent about a call reaches its conversation, through the real path (signed
 * webhooks → gateway → NATS → conversations-service → PostgreSQL → the API), for the two calls that
 * lost theirs: a platform_b report stamped at the call's start, and a platform_a call whose
 * call_started never arrived.
 */
describe('call facts from platform webhooks', () => {
  let system: RunningSystem;
  let account: TestAccount;

  const agentOn = async (platform: 'platform_a' | 'platform_b', name: string) => {
    const res = await account.api.post('/v1/agents', { name, voice_platform: platform });
    expect(res.status).toBe(201);
    const agent = await pollUntil(
      () => account.api.get(`/v1/agents/${res.body.data.id}`),
      (r) => typeof r.body.data?.platform_sync?.platform_agent_id === 'string',
      20_000,
    );
    return { id: res.body.data.id as string, platformAgentId: agent.body.data.platform_sync.platform_agent_id as string };
  };
  const deliver = async (platform: 'platform_a' | 'platform_b', message: object) => {
    const { webhook_url } = (await account.api.get(`/v1/integrations/${platform}`)).body.data;
    const body = JSON.stringify(message);
    const headers = platform === 'platform_a' ? signPlatformAWebhook(body, system.platforms.webhookSecret) : signPlatformBWebhook(body, system.platforms.webhookSecret);
    const res = await fetch(webhook_url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    const answer = (await res.json()) as { data: { outcome: string } };
    return { status: res.status, outcome: answer.data?.outcome };
  };
  const conversationWhen = (id: string, accept: (res: ApiResponse) => boolean) =>
    pollUntil(() => account.api.get(`/v1/conversations/${encodeURIComponent(id)}`), accept, 20_000);
  const idsForCaller = async (caller: string) =>
    ((await account.api.get(`/v1/conversations?caller=${encodeURIComponent(caller)}&per_page=100`)).body.data as Array<{ id: string }>).map((c) => c.id);

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
    account = await system.createAccount();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('platform_b: in-progress, ended (customer-ended-call), then a report stamped at the call\'s start → completed, with its caller, found by ?caller=', async () => {
    const agent = await agentOn('platform_b', 'Facts B');
    const callId = '7d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6';
    const caller = '+19175550123';
    const startMs = Date.now() - 120_000;
    const endMs = startMs + 42_000;
    const call = { id: callId, assistantId: agent.platformAgentId, type: 'inboundPhoneCall', customer: { number: caller }, phoneNumber: { number: '+14155550199' } };
    const answers = [
      await deliver('platform_b', { message: { type: 'status-update', status: 'in-progress', timestamp: startMs, call } }),
      await deliver('platform_b', { message: { type: 'status-update', status: 'ended', endedReason: 'customer-ended-call', timestamp: endMs, call } }),
      await deliver('platform_b', {
        message: {
          type: 'end-of-call-report', timestamp: startMs, call, endedReason: 'customer-ended-call',
          startedAt: new Date(startMs).toISOString(), endedAt: new Date(endMs).toISOString(), cost: 0.05,
          artifact: {
            messages: [
              { role: 'bot', message: 'Hello, how can I help?', time: startMs + 500, endTime: startMs + 2000, secondsFromStart: 0.5, duration: 1500 },
              { role: 'user', message: 'I need to move my appointment.', time: startMs + 3000, endTime: startMs + 5000, secondsFromStart: 3, duration: 2000 },
            ],
          },
          analysis: { summary: 'Moved the appointment.' },
        },
      }),
    ];
    // The ended status is left to the report (whether the assistant spoke decides its class).
    expect(answers).toEqual([{ status: 200, outcome: 'accepted' }, { status: 200, outcome: 'ignored' }, { status: 200, outcome: 'accepted' }]);

    const res = await conversationWhen(callId, (r) => r.status === 200 && r.body.data.status === 'completed');
    expect(res.body.data).toMatchObject({
      status: 'completed', caller_number: caller, start_time: new Date(startMs).toISOString(), duration: 42, summary: 'Moved the appointment.',
    });
    expect(await idsForCaller(caller)).toContain(callId);
  }, 60_000);

  it('platform_a: only call_ended (error_asr), its call_started never delivered → failed, with its caller and start, found by ?caller=', async () => {
    const agent = await agentOn('platform_a', 'Facts A');
    const callId = 'call_facts_e2e_a1';
    const caller = '+19175550188';
    const startMs = Date.now() - 90_000;
    const answer = await deliver('platform_a', {
      event: 'call_ended',
      call: {
        call_id: callId, agent_id: agent.platformAgentId, direction: 'inbound', from_number: caller, to_number: '+14155550199',
        call_status: 'error', disconnection_reason: 'error_asr', start_timestamp: startMs, end_timestamp: startMs + 30_000, duration_ms: 30_000,
        transcript_object: [],
      },
    });
    expect(answer).toEqual({ status: 200, outcome: 'accepted' });

    const res = await conversationWhen(callId, (r) => r.status === 200);
    expect(res.body.data).toMatchObject({
      status: 'failed', failure_reason: 'error_asr', caller_number: caller, start_time: new Date(startMs).toISOString(), duration: 30,
    });
    expect(await idsForCaller(caller)).toContain(callId);
  }, 60_000);
});
