import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { PlatformBSimulator } from './platform-b/platform-b-simulator.js';
import { signPlatformBWebhook } from './platform-b/signing.js';
import { send } from './spec-support.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './webhook-receiver.js';

const SECRET = 'whsec-platform-b';
let simulator: PlatformBSimulator;
let receiver: WebhookReceiver;
let assistant: { id: string };

beforeAll(async () => {
  simulator = await PlatformBSimulator.start({ webhookSecret: SECRET });
});
afterAll(() => simulator.stop());
beforeEach(async () => {
  simulator.reset();
  receiver = await startWebhookReceiver();
  assistant = (await send(simulator.url, 'POST', '/assistant', { body: { name: 'Front desk', server: { url: receiver.url }, metadata: { externalId: 'agt_9' } } })).body;
});
afterEach(() => receiver.stop());

/** platforms.md, independently of the package: hex HMAC-SHA256(secret, "<X-Timestamp>.<raw body>"), timestamp in seconds. */
function verifies(webhook: ReceivedWebhook, secret = SECRET): boolean {
  const timestamp = String(webhook.headers['x-timestamp']);
  if (!/^\d{10}$/.test(timestamp)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${webhook.rawBody}`).digest('hex');
  return expected === webhook.headers['x-signature'] && Math.abs(Date.now() / 1000 - Number(timestamp)) < 5 * 60;
}

type Message = { type: string; status?: string; transcriptType?: string; role?: string; transcript?: string; [field: string]: any };
const messagesOf = (webhooks: ReceivedWebhook[]) => webhooks.map((webhook) => (webhook.body as { message: Message }).message);
const kinds = (webhooks: ReceivedWebhook[]) =>
  messagesOf(webhooks).map((message) => (message.type === 'status-update' ? `status:${message.status}` : message.type === 'transcript' ? `transcript:${message.transcriptType}` : message.type));
const report = (webhooks: ReceivedWebhook[]) => messagesOf(webhooks).find((message) => message.type === 'end-of-call-report') as Message;

describe('signPlatformBWebhook', () => {
  it('signs "<seconds>.<raw body>", matching an independent HMAC', () => {
    const body = '{"message":{"type":"status-update"}}';
    const expected = createHmac('sha256', 'secret').update(`1730000000.${body}`).digest('hex');

    expect(signPlatformBWebhook(body, 'secret', 1_730_000_000)).toEqual({ 'X-Timestamp': '1730000000', 'X-Signature': expected });
  });
});

describe('a completed platform_b call', () => {
  it('sends ringing, in-progress, a partial then a final transcript per turn, ended and the report, all signed', async () => {
    const placed = await simulator.placeCall({ agentId: assistant.id, turns: [{ role: 'agent', text: 'Hello, how can I help?' }, { role: 'user', text: 'Just checking in' }] });

    expect(kinds(receiver.received)).toEqual(['status:ringing', 'status:in-progress', 'transcript:partial', 'transcript:final', 'transcript:partial', 'transcript:final', 'status:ended', 'end-of-call-report']);
    expect(receiver.received.every((webhook) => verifies(webhook))).toBe(true);
    expect(receiver.received.some((webhook) => verifies(webhook, 'another secret'))).toBe(false);
    expect(placed).toMatchObject({ platform: 'platform_b', outcome: 'completed', reason: 'assistant-ended-call' });
    const transcripts = messagesOf(receiver.received).filter((message) => message.type === 'transcript');
    expect(transcripts.map((message) => [message.role, message.transcript])).toEqual([
      ['assistant', 'Hello, how can'],
      ['assistant', 'Hello, how can I help?'],
      ['user', 'Just checking'],
      ['user', 'Just checking in'],
    ]);
  });

  it('wraps each message in the documented envelope with the call', async () => {
    await send(simulator.url, 'POST', '/phone-number', { body: { number: '+14155550123', assistantId: assistant.id } });

    const placed = await simulator.placeCall({ agentId: assistant.id, fromNumber: '+12125550100' });

    for (const message of messagesOf(receiver.received)) {
      expect(message.timestamp).toEqual(expect.any(Number));
      expect(message.call).toEqual({ id: placed.callId, assistantId: assistant.id, type: 'inboundPhoneCall', customer: { number: '+12125550100' }, phoneNumber: { number: '+14155550123' } });
    }
    const timestamps = messagesOf(receiver.received).map((message) => message.timestamp);
    expect([...timestamps].sort((a, b) => a - b)).toEqual(timestamps);
  });

  it('reports the call at its end: times, cost and breakdown, artifact messages, analysis and metrics', async () => {
    const placed = await simulator.placeCall({ agentId: assistant.id, analysis: { outcome: 'resolved', topics: ['billing'], sentiment: 'positive' } });
    const ended = report(receiver.received);

    expect(ended.endedReason).toBe('assistant-ended-call');
    const started = Date.parse(ended.startedAt);
    expect(Date.parse(ended.endedAt)).toBeGreaterThan(started);
    expect(ended.cost).toBeGreaterThan(0);
    const { stt, llm, tts, transport, total } = ended.costBreakdown;
    expect(total).toBe(ended.cost);
    expect(stt + llm + tts + transport).toBeCloseTo(total, 8);
    expect(ended.artifact.messages).toHaveLength(6);
    for (const message of ended.artifact.messages) {
      expect(['bot', 'user']).toContain(message.role);
      expect(message.endTime - message.time).toBe(message.duration);
      expect(message.secondsFromStart).toBeCloseTo((message.time - started) / 1000, 6);
    }
    expect(ended.artifact.messages[0]).toMatchObject({ role: 'bot' });
    expect(ended.artifact.transcript.split('\n')[0]).toMatch(/^AI: /);
    expect(ended.artifact.recordingUrl).toBe(`${simulator.url}/recordings/${placed.callId}.wav`);
    expect(ended.analysis).toEqual({ summary: expect.any(String), structuredData: { sentiment: 'positive', outcome: 'resolved', topics: ['billing'] }, successEvaluation: 'true' });
    expect(Object.keys(ended.performanceMetrics).sort()).toEqual(['modelLatencyAverage', 'transcriberLatencyAverage', 'turnLatencyAverage', 'voiceLatencyAverage']);
  });

  it('sends an empty customer when the caller withheld the number', async () => {
    await simulator.placeCall({ agentId: assistant.id, outcome: 'busy', fromNumber: null });
    expect(messagesOf(receiver.received)[0].call.customer).toEqual({});
  });
});

describe('platform_b calls that do not complete', () => {
  it.each([
    ['busy', 'customer-busy'],
    ['no-answer', 'customer-did-not-answer'],
    ['failed', 'twilio-failed-to-connect-call'],
  ] as const)('%s: never in progress, ended with %s and an empty artifact', async (outcome, reason) => {
    await simulator.placeCall({ agentId: assistant.id, outcome });

    expect(kinds(receiver.received)).toEqual(['status:ringing', 'status:ended', 'end-of-call-report']);
    expect(messagesOf(receiver.received)[1].endedReason).toBe(reason);
    expect(report(receiver.received)).toMatchObject({ endedReason: reason, artifact: { messages: [], transcript: '' }, analysis: { successEvaluation: 'false' } });
  });

  it('caller hang-up: in progress, the assistant never speaks, customer-ended-call', async () => {
    await simulator.placeCall({ agentId: assistant.id, outcome: 'caller-hangup' });

    expect(kinds(receiver.received)).toEqual(['status:ringing', 'status:in-progress', 'status:ended', 'end-of-call-report']);
    const ended = report(receiver.received);
    expect(ended.endedReason).toBe('customer-ended-call');
    expect(ended.artifact.messages.filter((message: { role: string }) => message.role === 'bot')).toEqual([]);
    expect(Date.parse(ended.endedAt)).toBeGreaterThan(Date.parse(ended.startedAt));
  });

  it('failed with a pipeline error after connecting: in progress, then that reason', async () => {
    await simulator.placeCall({ agentId: assistant.id, outcome: 'failed', reason: 'pipeline-error-openai-llm-failed' });

    expect(kinds(receiver.received)).toEqual(['status:ringing', 'status:in-progress', 'status:ended', 'end-of-call-report']);
    expect(report(receiver.received).endedReason).toBe('pipeline-error-openai-llm-failed');
  });
});

describe('platform_b delivery', () => {
  it('does not retry by default: a refused message is lost', async () => {
    await receiver.stop();
    receiver = await startWebhookReceiver({ statusFor: (index) => (index === 0 ? 500 : 200) });

    const placed = await simulator.placeCall({ agentId: assistant.id, outcome: 'busy', webhookUrl: receiver.url });

    expect(placed.deliveries.map((delivery) => [delivery.attempts.length, delivery.delivered])).toEqual([
      [1, false],
      [1, true],
      [1, true],
    ]);
    expect(receiver.received).toHaveLength(3);
  });

  it('retries when configured, backing off: the delay doubles from one retry to the next', async () => {
    await receiver.stop();
    receiver = await startWebhookReceiver({ statusFor: (index) => (index < 3 ? 502 : 200) });

    const placed = await simulator.placeCall({ agentId: assistant.id, outcome: 'busy', webhookUrl: receiver.url, delivery: { retries: 10, retryDelayMs: 40 } });

    const attempts = placed.deliveries[0].attempts;
    expect(attempts.map((attempt) => attempt.status)).toEqual([502, 502, 502, 200]);
    const gaps = attempts.slice(1).map((attempt, index) => attempt.at - attempts[index].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
    expect(receiver.received.every((webhook) => verifies(webhook))).toBe(true);
  });

  it('refuses more than 10 retries', async () => {
    await expect(simulator.placeCall({ agentId: assistant.id, delivery: { retries: 11 } })).rejects.toThrow('retries');
    expect(receiver.received).toEqual([]);
  });

  it('records a receiver that is not listening as attempts without a status', async () => {
    await receiver.stop();

    const placed = await simulator.placeCall({ agentId: assistant.id, outcome: 'busy', webhookUrl: receiver.url, delivery: { retries: 1, retryDelayMs: 5 } });

    expect(placed.deliveries[0].attempts).toEqual([expect.objectContaining({ status: null, error: expect.any(String) }), expect.objectContaining({ status: null })]);
    expect(placed.deliveries.some((delivery) => delivery.delivered)).toBe(false);
    receiver = await startWebhookReceiver();
  });
});

describe('platform_b chaos', () => {
  it('sends the end of the call before its start', async () => {
    await simulator.placeCall({ agentId: assistant.id, outcome: 'caller-hangup', chaos: { reorder: 'end-before-start' } });
    expect(kinds(receiver.received)).toEqual(['status:ended', 'end-of-call-report', 'status:ringing', 'status:in-progress']);
  });

  it('duplicates every message when asked, and adds a message type platforms.md does not list', async () => {
    await simulator.placeCall({ agentId: assistant.id, outcome: 'busy', chaos: { duplicate: true, unknownEvent: true } });

    expect(kinds(receiver.received)).toEqual(['status:ringing', 'status:ringing', 'speech-update', 'speech-update', 'status:ended', 'status:ended', 'end-of-call-report', 'end-of-call-report']);
    expect(receiver.received[6].rawBody).toBe(receiver.received[7].rawBody);
  });
});
