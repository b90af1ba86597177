/** The ConversationStats component (GET /v1/conversations/stats) and its example. */
import {
  CONVERSATION_STATUSES, DURATION_HISTOGRAM_BOUNDS, MAX_TIMELINE_POINTS, MAX_TOP_TOPICS, STATS_BUCKETS, type ConversationStats,
} from '@voice/contracts';
import { arrayOf, dateTime, enumOf, integer, string, viewSchema, type JsonSchema } from './json-schema.js';

const count = integer({ minimum: 0 });
const closed = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object', required: Object.keys(properties), properties, additionalProperties: false, ...extra,
});
const statusCounts = Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, count]));
const seconds = (description: string): JsonSchema => ({ type: ['number', 'null'], minimum: 0, description });

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

export const conversationStatsSchema = viewSchema<ConversationStats>(
  {
    total: integer({ minimum: 0, description: 'Conversations the filters select.' }),
    by_status: closed(statusCounts),
    by_sentiment: closed({ positive: count, neutral: count, negative: count, unknown: count }, { description: 'unknown: no sentiment reported.' }),
    by_outcome: {
      type: 'object',
      additionalProperties: count,
      description: 'Conversations per outcome label as recorded, most frequent first; conversations without an outcome are not counted.',
    },
    top_topics: arrayOf(closed({ topic: string(), count }), {
      maxItems: MAX_TOP_TOPICS,
      description: `The ${MAX_TOP_TOPICS} most frequent topics (lower-cased), count descending then topic ascending.`,
    }),
    duration: closed(
      { avg: seconds('Mean, rounded to 0.01 s.'), p50: seconds('Median (linear interpolation), rounded to 0.01 s.'), p90: seconds('90th percentile (linear interpolation), rounded to 0.01 s.') },
      { description: 'Seconds, over every selected conversation; null when there is none.' },
    ),
    duration_histogram: arrayOf(
      closed({ min: integer({ minimum: 0, description: 'Seconds, inclusive.' }), max: { type: ['integer', 'null'], description: 'Seconds, exclusive; null for the last bucket.' }, count }),
      {
        minItems: DURATION_HISTOGRAM_BOUNDS.length,
        maxItems: DURATION_HISTOGRAM_BOUNDS.length,
        description: `Fixed buckets: ${DURATION_HISTOGRAM_BOUNDS.map((b) => (b.max === null ? `${b.min}+` : `${b.min}–${b.max}`)).join(', ')} seconds.`,
      },
    ),
    timeline: closed({
      bucket: enumOf(STATS_BUCKETS),
      points: arrayOf(closed({ start: { ...dateTime, description: 'Start of the UTC hour or day.' }, ...statusCounts }), {
        maxItems: MAX_TIMELINE_POINTS,
        description: 'Conversations by start time and status, one point per bucket of the range, zeros included, oldest first.',
      }),
    }),
    cost: closed({ total: { type: 'number', minimum: 0, description: 'Sum of the reported costs.' }, currency: enumOf(['USD']) }),
  },
  { description: 'Aggregate figures over the conversations the filters select.', examples: [CONVERSATION_STATS_EXAMPLE] },
);
