import type { CallEndDetails, ConversationCost, LatencyFigures } from '@voice/contracts';

/*
 * What the voice platform reports about the example call of examples.ts beyond the
 * interface's own fields: its id of the call, why it ended, its cost and latencies.
 * Apart so examples.ts stays one story of a readable length.
 */

export const PLATFORM_CALL_ID_EXAMPLE = 'pa_call_8d2f6a1c4b';

export const CALL_COST_EXAMPLE: ConversationCost = {
  amount: 0.1842,
  currency: 'USD',
  breakdown: [
    { component: 'llm', amount: 0.0711 },
    { component: 'tts', amount: 0.0531 },
    { component: 'telephony', amount: 0.06 },
  ],
};

export const LATENCY_EXAMPLE: LatencyFigures[] = [
  { component: 'llm', p50_ms: 410, p90_ms: 640, p99_ms: 980, average_ms: 452.5 },
  { component: 'tts', p50_ms: 180, p90_ms: 260 },
];

/**
 * As the end of the example call carries them (call.ended), and as the detail shows them (technical);
 * the caller, start, recording and analysis the end may also carry are the conversation's own fields, not technical ones.
 */
export const CALL_END_DETAILS_EXAMPLE: Required<Omit<CallEndDetails, 'caller_number' | 'start_time' | 'recording_url' | 'summary' | 'sentiment' | 'topics'>> & {
  cost: ConversationCost;
} = {
  platform_call_id: PLATFORM_CALL_ID_EXAMPLE,
  end_reason: 'customer-ended-call',
  cost: CALL_COST_EXAMPLE,
  latency: LATENCY_EXAMPLE,
};
