/** What platform_a POSTs to our webhook route (platforms.md), as the OpenAPI document shows it, with an example. */
import { arrayOf, enumOf, integer, number, open, string, unixMs, type JsonSchema } from '../webhooks/json-schema.js';
import { PLATFORM_A_EVENT_TYPES } from './webhook.js';

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

export const PLATFORM_A_WEBHOOK_SCHEMA: JsonSchema = {
  ...open({ event: string({ examples: [...PLATFORM_A_EVENT_TYPES] }), call: platformACall }, ['event', 'call'], 'What platform_a POSTs (platforms.md); other event types are recorded as ignored.'),
  examples: [PLATFORM_A_EXAMPLE],
};
