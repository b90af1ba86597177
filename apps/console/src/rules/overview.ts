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

type ListItem = { id: string; status: string; start_time: string | null };

/**
 * The calls in progress now: those the list had, changed by what the stream said since (a call that ended
 * leaves, a new one joins), newest first.
 */
export function liveCalls<Item extends ListItem>(listed: readonly Item[], changes: readonly Item[]): Item[] {
  const calls = new Map<string, Item>(listed.map((c) => [c.id, c]));
  for (const change of changes) {
    if (change.status === 'in_progress') calls.set(change.id, change);
    else calls.delete(change.id);
  }
  return [...calls.values()].sort((a, b) => (b.start_time ?? '').localeCompare(a.start_time ?? ''));
}

interface AgentStats {
  total: number;
  by_status: { failed: number };
  by_sentiment: { positive: number; neutral: number; negative: number };
  duration: { avg: number | null };
}

export interface AgentFigures {
  id: string;
  name: string;
  calls?: number;
  averageDuration?: number | null;
  positivePercent?: number;
  negativePercent?: number;
  failurePercent?: number;
}

const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 100) : undefined);

/** Each agent's figures from its stats (undefined while they load); sentiment shares among calls that have one. */
export function agentFigures(entries: ReadonlyArray<{ agent: { id: string; name: string }; stats?: AgentStats }>): AgentFigures[] {
  return entries.map(({ agent, stats }) => {
    if (!stats) return { id: agent.id, name: agent.name };
    const rated = stats.by_sentiment.positive + stats.by_sentiment.neutral + stats.by_sentiment.negative;
    return {
      id: agent.id,
      name: agent.name,
      calls: stats.total,
      averageDuration: stats.duration.avg,
      positivePercent: percent(stats.by_sentiment.positive, rated),
      negativePercent: percent(stats.by_sentiment.negative, rated),
      failurePercent: percent(stats.by_status.failed, stats.total),
    };
  });
}
