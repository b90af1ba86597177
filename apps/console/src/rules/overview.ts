import { dayEnd, dayStart } from './conversation-filters';

/** Per hour when the range spans at most two days, else per day (the stats endpoint's `bucket`). */
export function bucketFor(startDay: string, endDay: string): 'hour' | 'day' {
  const start = Date.parse(dayStart(startDay));
  const end = Date.parse(dayEnd(endDay));
  if (!Number.isFinite(start) || !Number.isFinite(end)) return 'day';
  return end - start <= 2 * 86_400_000 ? 'hour' : 'day';
}

/** The default range: the last `days` calendar days up to today (UTC), as YYYY-MM-DD. */
export function recentDays(days: number, now = new Date()): { start: string; end: string } {
  const end = now.toISOString().slice(0, 10);
  const start = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { start, end };
}

/** Each entry's share of the total, in whole percent (0 when the total is 0). */
export function shares(counts: Record<string, number>): Array<{ key: string; count: number; percent: number }> {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return Object.entries(counts)
    .map(([key, count]) => ({ key, count, percent: total ? Math.round((count / total) * 100) : 0 }))
    .sort((a, b) => b.count - a.count);
}
