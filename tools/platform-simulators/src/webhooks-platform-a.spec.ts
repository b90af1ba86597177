import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { PlatformASimulator } from './platform-a/platform-a-simulator.js';
import { signPlatformAWebhook } from './platform-a/signing.js';
import { send } from './spec-support.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './webhook-receiver.js';

const SECRET = 'whsec-platform-a';
const FAST_RETRIES = { retryDelayMs: 10 };
let simulator: PlatformASimulator;
let receiver: WebhookReceiver;
let agent: { agent_id: string; metadata: Record<string, string> };

beforeAll(async () => {
  simulator = await PlatformASimulator.start({ webhookSecret: SECRET });
});
afterAll(() => simulator.stop());
beforeEach(async () => {
  simulator.reset();
  receiver = await startWebhookReceiver();
  agent = (await send(simulator.url, 'POST', '/v2/agents', { body: { agent_name: 'Front desk', webhook_url: receiver.url, metadata: { external_id: 'agt_9' } } })).body;
});
afterEach(() => receiver.stop());

/** platforms.md, independently of the package: hex HMAC-SHA256(secret, raw body bytes + timestamp digits). */
function verifies(webhook: ReceivedWebhook, secret = SECRET): boolean {
  const match = /^v=(\d+),d=([0-9a-f]{64})$/.exec(String(webhook.headers['x-platform-a-signature']));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(webhook.rawBody + match[1]).digest('hex');
  return expected === match[2] && Math.abs(Date.now() - Number(match[1])) < 5 * 60_000;
}

const eventsOf = (webhooks: ReceivedWebhook[]) => webhooks.map((webhook) => (webhook.body as { event: string }).event);
const callOf = (webhooks: ReceivedWebhook[], event: string) => (webhooks.find((webhook) => (webhook.body as { event: string }).event === event)?.body as { call: any }).call;

describe('signPlatformAWebhook', () => {
  it('signs raw body + millisecond timestamp digits, matching an independent HMAC', () => {
    const body = '{"event":"call_started","call":{"call_id":"c1"}}';
    const expected = createHmac('sha256', 'secret').update(`${body}1730000000123`).digest('hex');

    expect(signPlatformAWebhook(body, 'secret', 1_730_000_000_123)).toEqual({ 'X-Platform-A-Signature': `v=1730000000123,d=${expected}` });
    expect(signPlatformAWebhook(Buffer.from(body), 'secret', 1_730_000_000_123)).toEqual(signPlatformAWebhook(body, 'secret', 1_730_000_000_123));
  });
});

describe('a completed platform_a call', () => {
  it('sends call_started, a transcript_updated per turn, call_ended and call_analyzed, each signed with the webhook secret', async () => {
    const placed = await simulator.placeCall({ agentId: agent.agent_id });

    expect(eventsOf(receiver.received)).toEqual(['call_started', ...Array(6).fill('transcript_updated'), 'call_ended', 'call_analyzed']);
    expect(receiver.received.every((webhook) => verifies(webhook))).toBe(true);
    expect(receiver.received.some((webhook) => verifies(webhook, 'another secret'))).toBe(false);
    expect(placed).toMatchObject({ platform: 'platform_a', callId: expect.stringMatching(/^call_[0-9a-f]{32}$/), outcome: 'completed', reason: 'agent_hangup', webhookUrl: receiver.url });
    expect(placed.deliveries.every((delivery) => delivery.delivered && delivery.attempts.length === 1)).toBe(true);
    expect(receiver.received.map((webhook) => webhook.rawBody)).toEqual(placed.deliveries.map((delivery) => delivery.rawBody));
  });

  it('describes the call in the documented call object', async () => {
    await send(simulator.url, 'POST', '/v2/phone-numbers', { body: { phone_number: '+14155550123', inbound_agent_id: agent.agent_id } });

    const placed = await simulator.placeCall({ agentId: agent.agent_id, fromNumber: '+12125550100' });
    const ended = callOf(receiver.received, 'call_ended');

    expect(ended).toMatchObject({
      call_id: placed.callId,
      agent_id: agent.agent_id,
      direction: 'inbound',
      from_number: '+12125550100',
      to_number: '+14155550123',
      call_status: 'ended',
      disconnection_reason: 'agent_hangup',
      // Served by the simulator itself, so a player can play it.
      recording_url: `${simulator.url}/recordings/${placed.callId}.wav`,
      metadata: { external_id: 'agt_9' },
    });
    expect(ended.end_timestamp - ended.start_timestamp).toBe(ended.duration_ms);
    expect(ended).not.toHaveProperty('call_analysis');
    const products = ended.call_cost.product_costs.reduce((sum: number, product: { cost: number }) => sum + product.cost, 0);
    expect(ended.call_cost.combined_cost).toBeGreaterThan(0);
    expect(products).toBeCloseTo(ended.call_cost.combined_cost, 6);
    for (const part of ['e2e', 'llm', 'tts', 'asr']) {
      const { p50, p90, p99 } = ended.latency[part];
      expect(p50 <= p90 && p90 <= p99).toBe(true);
    }
  });

  it('times every word in seconds from the call start, in order, within the call', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, turns: [{ role: 'agent', text: 'Hello there' }, { role: 'user', text: 'Hi' }] });
    const ended = callOf(receiver.received, 'call_ended');

    expect(ended.transcript_object.map((turn: { role: string; content: string }) => [turn.role, turn.content])).toEqual([['agent', 'Hello there'], ['user', 'Hi']]);
    const words = ended.transcript_object.flatMap((turn: { words: Array<{ word: string; start: number; end: number }> }) => turn.words);
    expect(words.map((word: { word: string }) => word.word)).toEqual(['Hello', 'there', 'Hi']);
    for (let index = 0; index < words.length; index += 1) {
      expect(words[index].start).toBeLessThan(words[index].end);
      if (index > 0) expect(words[index].start).toBeGreaterThanOrEqual(words[index - 1].end);
    }
    expect(words.at(-1).end).toBeLessThan(ended.duration_ms / 1000);
    expect(words[0].start).toBeLessThan(5);
  });

  it('carries the transcript so far in each transcript_updated, and the analysis in call_analyzed', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, analysis: { outcome: 'appointment_booked', topics: ['booking'], sentiment: 'neutral' } });

    const updates = receiver.received.filter((webhook) => (webhook.body as { event: string }).event === 'transcript_updated');
    expect(updates.map((webhook) => (webhook.body as { call: { transcript_object: unknown[] } }).call.transcript_object.length)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(callOf(receiver.received, 'call_analyzed').call_analysis).toEqual({
      call_summary: expect.any(String),
      user_sentiment: 'Neutral',
      call_successful: true,
      custom_analysis_data: { outcome: 'appointment_booked', topics: ['booking'] },
    });
  });

  it('leaves from_number out when the caller withheld it', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, fromNumber: null });
    expect(callOf(receiver.received, 'call_started')).not.toHaveProperty('from_number');
  });
});

describe('platform_a calls that do not complete', () => {
  it.each([
    ['busy', 'dial_busy'],
    ['no-answer', 'dial_no_answer'],
    ['failed', 'dial_failed'],
  ] as const)('%s: no call_started, call_ended and call_analyzed with %s and not_connected', async (outcome, reason) => {
    const placed = await simulator.placeCall({ agentId: agent.agent_id, outcome });

    expect(eventsOf(receiver.received)).toEqual(['call_ended', 'call_analyzed']);
    expect(callOf(receiver.received, 'call_ended')).toMatchObject({ call_status: 'not_connected', disconnection_reason: reason, transcript_object: [], duration_ms: 0 });
    expect(callOf(receiver.received, 'call_analyzed').call_analysis).toMatchObject({ call_successful: false, user_sentiment: 'Unknown' });
    expect(placed.reason).toBe(reason);
  });

  it('caller hang-up: the call starts, the agent never speaks, user_hangup', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, outcome: 'caller-hangup' });

    expect(eventsOf(receiver.received)).toEqual(['call_started', 'call_ended', 'call_analyzed']);
    const ended = callOf(receiver.received, 'call_ended');
    expect(ended).toMatchObject({ call_status: 'ended', disconnection_reason: 'user_hangup' });
    expect(ended.transcript_object.filter((turn: { role: string }) => turn.role === 'agent')).toEqual([]);
    expect(ended.duration_ms).toBeGreaterThan(0);
  });

  it('failed with an error reason after connecting: call_started, then call_status error with that reason', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, outcome: 'failed', reason: 'error_llm_websocket_open' });

    expect(eventsOf(receiver.received)).toEqual(['call_started', 'call_ended', 'call_analyzed']);
    expect(callOf(receiver.received, 'call_ended')).toMatchObject({ call_status: 'error', disconnection_reason: 'error_llm_websocket_open' });
  });
});

describe('platform_a delivery', () => {
  it('retries a non-2xx answer: an event refused twice arrives on the third attempt, the same bytes each time', async () => {
    await receiver.stop();
    receiver = await startWebhookReceiver({ statusFor: (index) => (index < 2 ? 503 : 200) });

    const placed = await simulator.placeCall({ agentId: agent.agent_id, outcome: 'busy', webhookUrl: receiver.url, delivery: FAST_RETRIES });

    expect(placed.deliveries[0].attempts.map((attempt) => attempt.status)).toEqual([503, 503, 200]);
    expect(placed.deliveries.every((delivery) => delivery.delivered)).toBe(true);
    expect(receiver.received.slice(0, 3).map((webhook) => webhook.rawBody)).toEqual(Array(3).fill(placed.deliveries[0].rawBody));
    expect(receiver.received.every((webhook) => verifies(webhook))).toBe(true);
  });

  it('gives up after 3 retries (4 attempts) when the receiver keeps failing', async () => {
    await receiver.stop();
    receiver = await startWebhookReceiver({ statusFor: () => 500 });

    const placed = await simulator.placeCall({ agentId: agent.agent_id, outcome: 'no-answer', webhookUrl: receiver.url, delivery: FAST_RETRIES });

    expect(placed.deliveries.map((delivery) => [delivery.attempts.length, delivery.delivered])).toEqual([
      [4, false],
      [4, false],
    ]);
    expect(receiver.received).toHaveLength(8);
  });

  it('counts an answer slower than the timeout as failed and retries it', async () => {
    await receiver.stop();
    receiver = await startWebhookReceiver({ delayMs: 300 });

    const placed = await simulator.placeCall({ agentId: agent.agent_id, outcome: 'busy', webhookUrl: receiver.url, delivery: { retries: 1, retryDelayMs: 10, timeoutMs: 100 } });

    expect(placed.deliveries[0].attempts).toEqual([expect.objectContaining({ status: null, error: expect.stringContaining('100 ms') }), expect.objectContaining({ status: null })]);
  });

  it('refuses more than 3 retries, an unknown agent and an agent without webhook_url', async () => {
    await expect(simulator.placeCall({ agentId: agent.agent_id, delivery: { retries: 4 } })).rejects.toThrow('retries');
    await expect(simulator.placeCall({ agentId: 'agent_nobody' })).rejects.toMatchObject({ status: 404 });
    const { body: silent } = await send(simulator.url, 'POST', '/v2/agents', { body: { agent_name: 'No hooks' } });
    await expect(simulator.placeCall({ agentId: silent.agent_id })).rejects.toThrow('webhook_url');
    expect(receiver.received).toEqual([]);
  });
});

describe('platform_a chaos', () => {
  it('duplicates the chosen events with identical bodies', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, outcome: 'busy', chaos: { duplicate: ['call_ended'] } });

    expect(eventsOf(receiver.received)).toEqual(['call_ended', 'call_ended', 'call_analyzed']);
    expect(receiver.received[0].rawBody).toBe(receiver.received[1].rawBody);
  });

  it('delivers call_ended before call_started', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, outcome: 'caller-hangup', chaos: { reorder: 'end-before-start' } });
    expect(eventsOf(receiver.received)).toEqual(['call_ended', 'call_started', 'call_analyzed']);
  });

  it('reverses every event, drops omitted ones, and adds an event type platforms.md does not list', async () => {
    await simulator.placeCall({ agentId: agent.agent_id, outcome: 'caller-hangup', chaos: { reorder: 'reverse', omit: ['call_analyzed'], unknownEvent: true } });
    expect(eventsOf(receiver.received)).toEqual(['call_ended', 'call_recording_ready', 'call_started']);
  });
});

describe('platform_a calls over the control API', () => {
  it('places a call with POST /__sim/calls and answers its deliveries', async () => {
    const placed = await send(simulator.url, 'POST', '/__sim/calls', { key: null, body: { agentId: agent.agent_id, outcome: 'busy' } });

    expect(placed).toMatchObject({ status: 200, body: { outcome: 'busy', reason: 'dial_busy', deliveries: [{ type: 'call_ended', delivered: true }, { type: 'call_analyzed', delivered: true }] } });
    expect(eventsOf(receiver.received)).toEqual(['call_ended', 'call_analyzed']);
    expect((await send(simulator.url, 'POST', '/__sim/calls', { key: null, body: { agentId: 'agent_nobody' } })).status).toBe(404);
    expect((await send(simulator.url, 'POST', '/__sim/calls', { key: null, body: { agentId: agent.agent_id, outcome: 'exploded' } })).status).toBe(400);
  });

  it('signs with the secret set over the control API', async () => {
    expect((await send(simulator.url, 'PUT', '/__sim/webhook-secret', { key: null, body: { secret: 'rotated' } })).status).toBe(204);
    try {
      await simulator.placeCall({ agentId: agent.agent_id, outcome: 'busy' });
      expect(receiver.received.every((webhook) => verifies(webhook, 'rotated'))).toBe(true);
    } finally {
      simulator.setWebhookSecret(SECRET);
    }
  });
});
