/** What platform_b POSTs to our webhook route (platforms.md), as the OpenAPI document shows it, with an example. */
import { dateTime, enumOf, open, string, unixMs, type JsonSchema } from '../webhooks/json-schema.js';
import { PLATFORM_B_MESSAGE_TYPES } from './webhook.js';

const platformBMessage = open(
  {
    type: string({ examples: [...PLATFORM_B_MESSAGE_TYPES] }),
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

export const PLATFORM_B_WEBHOOK_SCHEMA: JsonSchema = {
  ...open({ message: platformBMessage }, ['message'], 'What platform_b POSTs (platforms.md); other message types are recorded as ignored.'),
  examples: [PLATFORM_B_EXAMPLE],
};
