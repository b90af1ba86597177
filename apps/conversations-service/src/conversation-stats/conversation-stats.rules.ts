/**
 * The pure parts of GET /v1/conversations/stats: which timeline bucket a range gets, whether its points
 * fit, the zero-filled points, and the fixed duration histogram.
 */
import {
  CONVERSATION_STATUSES, DURATION_HISTOGRAM_BOUNDS, HOURLY_RANGE_MAX_SECONDS, MAX_TIMELINE_POINTS,
  type ConversationStats, type ServiceError, type StatsBucket, type StatusCounts,
} from '@voice/contracts';

export const BUCKET_SECONDS: Record<StatsBucket, number> = { hour: 3600, day: 86_400 };

/** The bucket asked for, else hour when the range spans at most two days, else day. */
export function timelineBucket(requested: StatsBucket | undefined, fromMs: number, toMs: number): StatsBucket {
  if (requested) return requested;
  return toMs - fromMs <= HOURLY_RANGE_MAX_SECONDS * 1000 ? 'hour' : 'day';
}

/** The UTC bucket an instant falls in, as its index since the epoch (buckets are whole hours or days of UTC). */
export function slotOf(bucket: StatsBucket, ms: number): number {
  return Math.floor(ms / (BUCKET_SECONDS[bucket] * 1000));
}

/** The first and last bucket of a range, or the problem when it needs more than MAX_TIMELINE_POINTS points. */
export function timelineMustFit(bucket: StatsBucket, fromMs: number, toMs: number): { first: number; last: number } | { problem: ServiceError } {
  const first = slotOf(bucket, fromMs);
  const last = slotOf(bucket, toMs);
  if (last - first + 1 > MAX_TIMELINE_POINTS) {
    return {
      problem: {
        code: 'invalid_parameter',
        field: 'bucket',
        message:
          `The timeline of this range would have ${last - first + 1} ${bucket} points, more than ${MAX_TIMELINE_POINTS}: ` +
          'choose a coarser bucket or narrow start_date/end_date.',
      },
    };
  }
  return { first, last };
}

export const zeroCounts = (): StatusCounts => Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, 0])) as StatusCounts;

/** One point per bucket from first to last (inclusive), zeros where no conversation started. */
export function fillTimeline(
  bucket: StatsBucket,
  first: number,
  last: number,
  rows: ReadonlyArray<{ slot: number } & StatusCounts>,
): ConversationStats['timeline']['points'] {
  const bySlot = new Map(rows.map((r) => [r.slot, r]));
  const points: ConversationStats['timeline']['points'] = [];
  for (let slot = first; slot <= last; slot++) {
    const row = bySlot.get(slot);
    const counts = zeroCounts();
    for (const status of CONVERSATION_STATUSES) counts[status] = row?.[status] ?? 0;
    points.push({ start: new Date(slot * BUCKET_SECONDS[bucket] * 1000).toISOString(), ...counts });
  }
  return points;
}

/** The histogram bucket of a duration (index into DURATION_HISTOGRAM_BOUNDS): [min, max), the last one unbounded. */
export function durationBucket(duration: number): number {
  const index = DURATION_HISTOGRAM_BOUNDS.findIndex((b) => duration >= b.min && (b.max === null || duration < b.max));
  return index === -1 ? 0 : index;
}

/** Every histogram bucket with its count, from `bucket index → count` (durationBucket's numbering). */
export function fillHistogram(counts: ReadonlyMap<number, number>): ConversationStats['duration_histogram'] {
  return DURATION_HISTOGRAM_BOUNDS.map((b, index) => ({ min: b.min, max: b.max, count: counts.get(index) ?? 0 }));
}

/** An instant written `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (the parsed filter's form), in whole milliseconds. */
export function instantMs(instant: string): number {
  return Date.parse(`${instant.slice(0, instant.indexOf('.') === -1 ? 19 : 23)}Z`);
}

/** How many of the filtered conversations have each duration (whole seconds). */
export type DurationCounts = ReadonlyArray<{ duration: number; count: number }>;

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Average, median and p90 of the durations, from their counts: the database groups by duration in the
 * same pass as every other figure instead of sorting every row for percentile_cont. Percentiles
 * interpolate linearly between the closest ranks, as percentile_cont does; all three rounded to 0.01.
 */
export function durationFigures(counts: DurationCounts): { avg: number | null; p50: number | null; p90: number | null } {
  const sorted = [...counts].filter((c) => c.count > 0).sort((a, b) => a.duration - b.duration);
  const total = sorted.reduce((n, c) => n + c.count, 0);
  if (total === 0) return { avg: null, p50: null, p90: null };
  const sum = sorted.reduce((s, c) => s + c.duration * c.count, 0);
  // The value at 0-based rank `rank` of the sorted durations.
  const at = (rank: number) => {
    let seen = 0;
    for (const c of sorted) {
      seen += c.count;
      if (rank < seen) return c.duration;
    }
    return sorted[sorted.length - 1].duration;
  };
  const percentile = (q: number) => {
    const position = q * (total - 1);
    const lower = Math.floor(position);
    const below = at(lower);
    return below + (at(Math.ceil(position)) - below) * (position - lower);
  };
  return { avg: round2(sum / total), p50: round2(percentile(0.5)), p90: round2(percentile(0.9)) };
}

/** The histogram (bucket index → conversations) from the counts per duration. */
export function histogramOf(counts: DurationCounts): Map<number, number> {
  const histogram = new Map<number, number>();
  for (const { duration, count } of counts) {
    const bucket = durationBucket(duration);
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
  }
  return histogram;
}

/** Hourly status counts (slot = UTC hour since the epoch) summed into the bucket's slots; days are whole UTC days. */
export function rollUpHours<T extends { slot: number } & StatusCounts>(bucket: StatsBucket, hours: readonly T[]): Array<{ slot: number } & StatusCounts> {
  const perHour = BUCKET_SECONDS[bucket] / BUCKET_SECONDS.hour;
  const slots = new Map<number, { slot: number } & StatusCounts>();
  for (const hour of hours) {
    const slot = Math.floor(hour.slot / perHour);
    const into = slots.get(slot) ?? { slot, ...zeroCounts() };
    for (const status of CONVERSATION_STATUSES) into[status] += hour[status];
    slots.set(slot, into);
  }
  return [...slots.values()];
}
