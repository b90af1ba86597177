/** GET /v1/conversations/stats: aggregate figures over the conversations the list's filters select. */
import type { ConversationStatus } from './conversations.js';

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

export type StatusCounts = Record<ConversationStatus, number>;

export interface ConversationStats {
  total: number;
  by_status: StatusCounts;
  by_sentiment: { positive: number; neutral: number; negative: number; unknown: number };
  /** Lower-cased outcome → conversations; conversations without an outcome are not counted here. */
  by_outcome: Record<string, number>;
  top_topics: Array<{ topic: string; count: number }>;
  duration: { avg: number | null; p50: number | null; p90: number | null };
  duration_histogram: Array<{ min: number; max: number | null; count: number }>;
  timeline: { bucket: StatsBucket; points: Array<{ start: string } & StatusCounts> };
  cost: { total: number; currency: 'USD' };
}

