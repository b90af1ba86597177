/** The ConversationStats component (GET /v1/conversations/stats) and its example. */
import { ConversationStatsSchema, DURATION_HISTOGRAM_BOUNDS, type ConversationStats } from '@voice/contracts';
import { viewComponent } from './view-component.js';

export const CONVERSATION_STATS_EXAMPLE: ConversationStats = {
  total: 214,
  by_status: { in_progress: 3, completed: 180, failed: 12, abandoned: 19 },
  by_sentiment: { positive: 120, neutral: 50, negative: 30, unknown: 14 },
  by_outcome: { appointment_booked: 96, resolved: 60, escalated: 18 },
  top_topics: [{ topic: 'booking', count: 102 }, { topic: 'billing', count: 41 }, { topic: 'cancellation', count: 17 }],
  duration: { avg: 187.42, p50: 152, p90: 412.5 },
  duration_histogram: DURATION_HISTOGRAM_BOUNDS.map((b, i) => ({ min: b.min, max: b.max, count: [22, 18, 41, 80, 38, 14, 1][i] })),
  timeline: {
    bucket: 'day',
    points: [
      { start: '2025-01-01T00:00:00.000Z', in_progress: 0, completed: 90, failed: 7, abandoned: 11 },
      { start: '2025-01-02T00:00:00.000Z', in_progress: 0, completed: 0, failed: 0, abandoned: 0 },
      { start: '2025-01-03T00:00:00.000Z', in_progress: 3, completed: 90, failed: 5, abandoned: 8 },
    ],
  },
  cost: { total: 39.4213, currency: 'USD' },
};

export const conversationStatsSchema = viewComponent(ConversationStatsSchema, new Map(), [CONVERSATION_STATS_EXAMPLE]);
