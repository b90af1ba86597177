/** GET /v1/conversations/stats: aggregate figures over the conversations the list's filters select. */
import { Type, type Static } from '@sinclair/typebox';
import { CONVERSATION_STATUSES, type ConversationStatus } from './conversations.js';
import { ClosedObject, DateTime, StringEnum } from './view-schema.js';

export const STATS_BUCKETS = ['hour', 'day'] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];

/** At most this many timeline points; a range (and bucket) that needs more is refused (400 on bucket). */
export const MAX_TIMELINE_POINTS = 2000;
/** Without ?bucket=, a range of at most this many seconds is bucketed by hour, a longer one by day. */
export const HOURLY_RANGE_MAX_SECONDS = 2 * 24 * 3600;
/** At most this many topics in top_topics (count descending, then topic ascending). */
export const MAX_TOP_TOPICS = 20;

/**
 * The fixed duration histogram, in seconds: each bucket is [min, max), the last one has no upper bound
 * (max null). Every conversation of the set falls in exactly one (an in-progress call has duration 0 until
 * its platform reports one).
 */
export const DURATION_HISTOGRAM_BOUNDS: ReadonlyArray<{ min: number; max: number | null }> = [
  { min: 0, max: 30 },
  { min: 30, max: 60 },
  { min: 60, max: 120 },
  { min: 120, max: 300 },
  { min: 300, max: 600 },
  { min: 600, max: 1800 },
  { min: 1800, max: null },
];

const count = Type.Integer({ minimum: 0 });
const statusCountProperties = Object.fromEntries(CONVERSATION_STATUSES.map((status) => [status, count])) as Record<ConversationStatus, typeof count>;
const seconds = (description: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], minimum: 0, description });

export const StatusCountsSchema = ClosedObject(statusCountProperties);
export type StatusCounts = Static<typeof StatusCountsSchema>;

export const ConversationStatsSchema = ClosedObject(
  {
    total: Type.Integer({ minimum: 0, description: 'Conversations the filters select.' }),
    by_status: StatusCountsSchema,
    by_sentiment: ClosedObject({ positive: count, neutral: count, negative: count, unknown: count }, { description: 'unknown: no sentiment reported.' }),
    // Lower-cased outcome → conversations.
    by_outcome: Type.Unsafe<Record<string, number>>({
      type: 'object',
      additionalProperties: count,
      description: 'Conversations per outcome label as recorded, most frequent first; conversations without an outcome are not counted.',
    }),
    top_topics: Type.Array(ClosedObject({ topic: Type.String(), count }), {
      maxItems: MAX_TOP_TOPICS,
      description: `The ${MAX_TOP_TOPICS} most frequent topics (lower-cased), count descending then topic ascending.`,
    }),
    duration: ClosedObject(
      { avg: seconds('Mean, rounded to 0.01 s.'), p50: seconds('Median (linear interpolation), rounded to 0.01 s.'), p90: seconds('90th percentile (linear interpolation), rounded to 0.01 s.') },
      { description: 'Seconds, over every selected conversation; null when there is none.' },
    ),
    duration_histogram: Type.Array(
      ClosedObject({
        min: Type.Integer({ minimum: 0, description: 'Seconds, inclusive.' }),
        max: Type.Unsafe<number | null>({ type: ['integer', 'null'], description: 'Seconds, exclusive; null for the last bucket.' }),
        count,
      }),
      {
        minItems: DURATION_HISTOGRAM_BOUNDS.length,
        maxItems: DURATION_HISTOGRAM_BOUNDS.length,
        description: `Fixed buckets: ${DURATION_HISTOGRAM_BOUNDS.map((b) => (b.max === null ? `${b.min}+` : `${b.min}–${b.max}`)).join(', ')} seconds.`,
      },
    ),
    timeline: ClosedObject({
      bucket: StringEnum(STATS_BUCKETS),
      points: Type.Array(ClosedObject({ start: DateTime({ description: 'Start of the UTC hour or day.' }), ...statusCountProperties }), {
        maxItems: MAX_TIMELINE_POINTS,
        description: 'Conversations by start time and status, one point per bucket of the range, zeros included, oldest first.',
      }),
    }),
    cost: ClosedObject({ total: Type.Number({ minimum: 0, description: 'Sum of the reported costs.' }), currency: StringEnum(['USD']) }),
  },
  { description: 'Aggregate figures over the conversations the filters select.' },
);
export type ConversationStats = Static<typeof ConversationStatsSchema>;
