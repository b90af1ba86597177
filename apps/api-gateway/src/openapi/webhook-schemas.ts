/**
 * OpenAPI components of the webhook routes: the platforms' request bodies (their shapes, as
 * platforms.md documents them; open objects, since platforms add fields) and the delivery log.
 */
import { VOICE_PLATFORMS, WEBHOOK_DELIVERY_OUTCOMES, type WebhookDeliveryDetail, type WebhookDeliveryListItem } from '@voice/contracts';
import { arrayOf, dateTime, enumOf, integer, nullable, nullableString, string, viewSchema, type JsonSchema } from './json-schema.js';

const open = (properties: Record<string, JsonSchema>, required: string[] = [], description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
});
const number: JsonSchema = { type: 'number' };
const unixMs = integer({ description: 'Unix time, milliseconds.' });

const platformACall = open(
  {
    call_id: string(),
    agent_id: string({ description: 'platform_a’s agent id: the agent’s platform_sync.platform_agent_id.' }),
    direction: string(),
    from_number: string({ description: 'The caller (absent when withheld).' }),
    to_number: string(),
    call_status: string({ examples: ['registered', 'ongoing', 'ended', 'error', 'not_connected'] }),
    start_timestamp: unixMs,
    end_timestamp: unixMs,
    duration_ms: integer(),
    disconnection_reason: string({ description: 'Mapped to our status by the table in the README; new values are kept as end_reason.' }),
    transcript_object: arrayOf(open({ role: enumOf(['agent', 'user']), content: string(), words: arrayOf(open({ word: string(), start: number, end: number })) })),
    recording_url: string(),
    call_analysis: open({ call_summary: string(), user_sentiment: string(), call_successful: { type: 'boolean' }, custom_analysis_data: { type: 'object' } }),
    call_cost: open({ combined_cost: { type: 'number', description: 'US cents.' }, product_costs: arrayOf(open({ product: string(), cost: number })) }),
    latency: { type: 'object', description: '{ e2e | llm | tts | asr: { p50, p90, p99 } } in ms.' },
    metadata: { type: 'object' },
  },
  ['call_id', 'agent_id'],
);

const platformBMessage = open(
  {
    type: string({ examples: ['status-update', 'transcript', 'end-of-call-report'] }),
    timestamp: unixMs,
    call: open({ id: string(), assistantId: string(), type: string(), customer: open({ number: string() }), phoneNumber: open({ number: string() }) }, ['id', 'assistantId']),
    status: string({ examples: ['queued', 'ringing', 'in-progress', 'forwarding', 'ended'] }),
    endedReason: string(),
    role: enumOf(['assistant', 'user']),
    transcriptType: enumOf(['partial', 'final']),
    transcript: string(),
    startedAt: dateTime,
    endedAt: dateTime,
    cost: { type: 'number', description: 'USD.' },
    costBreakdown: { type: 'object' },
    artifact: { type: 'object' },
    analysis: { type: 'object' },
    performanceMetrics: { type: 'object' },
  },
  ['type', 'timestamp', 'call'],
);

const deliveryProperties = {
  id: string({ examples: ['whd_0c1d2e3f4a5b6c7d8e9f0a1b'] }),
  platform: enumOf(VOICE_PLATFORMS),
  integration_id: string(),
  received_at: dateTime,
  outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES, {
    description: 'accepted: its call events are queued for recording; duplicate: they were already accepted; ignored: nothing to record (reason says why; replayable); failed: not the platform’s shape, or not recordable.',
  }),
  reason: nullableString(),
  event_type: nullableString({ description: 'The platform’s event type.' }),
  platform_call_id: nullableString(),
  platform_agent_id: nullableString(),
  conversation_id: nullableString(),
  event_ids: arrayOf(string(), { description: 'The call events it maps to (deterministic ids).' }),
  body_bytes: integer({ minimum: 0 }),
  replay_of: nullableString({ description: 'On a replay: the delivery replayed.' }),
  last_replay: nullable({ type: 'object', required: ['id', 'outcome', 'at'], additionalProperties: false, properties: { id: string(), outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES), at: dateTime } }),
};

const DELIVERY_EXAMPLE: WebhookDeliveryListItem = {
  id: 'whd_0c1d2e3f4a5b6c7d8e9f0a1b',
  platform: 'platform_a',
  integration_id: 'int_3b9f1c7e2a5d8f0c4e6a1b2d',
  received_at: '2025-01-31T14:09:12.000Z',
  outcome: 'accepted',
  reason: null,
  event_type: 'call_ended',
  platform_call_id: 'call_7f3a',
  platform_agent_id: 'agent_0123456789abcdef0123456789abcdef',
  conversation_id: 'call_7f3a',
  event_ids: ['pa:call_7f3a:call_ended', 'pa:call_7f3a:call_ended:transcript'],
  body_bytes: 5234,
  replay_of: null,
  last_replay: null,
};

const PLATFORM_A_EXAMPLE = {
  event: 'call_ended',
  call: {
    call_id: 'call_7f3a',
    agent_id: 'agent_0123456789abcdef0123456789abcdef',
    direction: 'inbound',
    from_number: '+14155550123',
    to_number: '+14155550199',
    call_status: 'ended',
    start_timestamp: 1738332300000,
    end_timestamp: 1738332552000,
    duration_ms: 252000,
    disconnection_reason: 'agent_hangup',
    transcript_object: [
      { role: 'agent', content: 'Thanks for calling Harbor Dental.', words: [{ word: 'Thanks', start: 0.4, end: 0.7 }, { word: 'Dental.', start: 1.6, end: 2.1 }] },
      { role: 'user', content: 'I need to move my cleaning.', words: [{ word: 'I', start: 2.9, end: 3.0 }, { word: 'cleaning.', start: 4.2, end: 4.8 }] },
    ],
    recording_url: 'https://recordings.platform-a.example/call_7f3a.wav',
    call_cost: { combined_cost: 29.4, product_costs: [{ product: 'voice_engine', cost: 14.7 }, { product: 'llm', cost: 8.82 }, { product: 'telephony', cost: 5.88 }] },
    latency: { e2e: { p50: 820, p90: 1150, p99: 1480 } },
    metadata: { external_id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e' },
  },
};

const PLATFORM_B_EXAMPLE = {
  message: {
    type: 'end-of-call-report',
    timestamp: 1738332553000,
    call: { id: '5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c', assistantId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', type: 'inboundPhoneCall', customer: { number: '+14155550123' }, phoneNumber: { number: '+14155550199' } },
    endedReason: 'assistant-ended-call',
    startedAt: '2025-01-31T14:05:00.000Z',
    endedAt: '2025-01-31T14:09:12.000Z',
    cost: 0.294,
    costBreakdown: { stt: 0.04, llm: 0.09, tts: 0.1, transport: 0.064, total: 0.294 },
    artifact: {
      messages: [
        { role: 'bot', message: 'Harbor Dental billing, how can I help?', time: 1738332300600, endTime: 1738332303000, secondsFromStart: 0.6, duration: 2400 },
        { role: 'user', message: 'I have a question about my invoice.', time: 1738332303800, endTime: 1738332306100, secondsFromStart: 3.8, duration: 2300 },
      ],
      transcript: 'AI: Harbor Dental billing, how can I help?\nUser: I have a question about my invoice.',
      recordingUrl: 'https://recordings.platform-b.example/5b0e8c2a.wav',
    },
    analysis: { summary: 'Invoice question answered.', structuredData: { sentiment: 'positive', outcome: 'resolved', topics: ['billing'] }, successEvaluation: 'true' },
    performanceMetrics: { turnLatencyAverage: 910, modelLatencyAverage: 450, voiceLatencyAverage: 210, transcriberLatencyAverage: 140 },
  },
};

export function webhookComponents(): Record<string, JsonSchema> {
  return {
    PlatformAWebhook: {
      ...open({ event: string({ examples: ['call_started', 'transcript_updated', 'call_ended', 'call_analyzed'] }), call: platformACall }, ['event', 'call'], 'What platform_a POSTs (platforms.md); other event types are recorded as ignored.'),
      examples: [PLATFORM_A_EXAMPLE],
    },
    PlatformBWebhook: {
      ...open({ message: platformBMessage }, ['message'], 'What platform_b POSTs (platforms.md); other message types are recorded as ignored.'),
      examples: [PLATFORM_B_EXAMPLE],
    },
    WebhookReceipt: {
      type: 'object',
      required: ['delivery_id', 'outcome', 'reason'],
      additionalProperties: false,
      properties: { delivery_id: string(), outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES), reason: nullableString() },
      examples: [{ delivery_id: 'whd_0c1d2e3f4a5b6c7d8e9f0a1b', outcome: 'accepted', reason: null }],
    },
    WebhookDelivery: viewSchema<WebhookDeliveryListItem>(deliveryProperties, { description: 'A verified webhook delivery, without its body.', examples: [DELIVERY_EXAMPLE] }),
    WebhookDeliveryDetail: viewSchema<WebhookDeliveryDetail>(
      {
        ...deliveryProperties,
        body: string({ description: 'The body exactly as received.' }),
        body_encoding: enumOf(['utf8', 'base64'], { description: 'utf8, unless the bytes were not valid UTF-8 (then base64).' }),
      },
      { description: 'A delivery with its body.', examples: [{ ...DELIVERY_EXAMPLE, body: '{"event":"call_ended","call":{…}}', body_encoding: 'utf8' }] },
    ),
  };
}
