/** The stats figures from the sums of the selected conversations (a pass over the columns, or rollup cells). Pure. */
import { CONVERSATION_STATUSES, MAX_TOP_TOPICS, SENTIMENTS } from '@voice/contracts';
import type { StatsSummary, TimelineRow } from './conversation-stats.store.js';
import { durationFigures, histogramOf } from './conversation-stats.rules.js';
import type { FigureSums } from './day-rollups.js';

/** What summarize adds up: the sums, and the count, cost (millionths), first and last start (microseconds). */
export interface Tallies extends FigureSums {
  total: number;
  costMicros: number;
  first: number;
  last: number;
}

/** The figures; `outcomeNames` and `topicNames` name the codes byOutcome and byTopic are indexed by. */
export function figuresOf(t: Tallies, outcomeNames: readonly string[], topicNames: readonly string[]): { summary: StatsSummary; hours: TimelineRow[] } {
  const statusCounts = (counts: Float64Array) => Object.fromEntries(CONVERSATION_STATUSES.map((s, i) => [s, counts[i]])) as TimelineRow;
  // Most frequent first, ties by name in byte order (as the SQL's COLLATE "C").
  const ranked = (names: readonly string[], counts: Float64Array) =>
    names.map((name, code) => ({ name, count: counts[code] })).filter((x) => x.count > 0)
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const durationCounts = t.durations.entries().map(([duration, count]) => ({ duration, count }));
  const statuses = CONVERSATION_STATUSES.length;
  const perHour = new Map<number, Float64Array>();
  for (const [index, count] of t.hours.entries()) {
    const hour = t.firstHour + Math.floor(index / statuses);
    let counts = perHour.get(hour);
    if (!counts) perHour.set(hour, (counts = new Float64Array(statuses)));
    counts[index % statuses] = count;
  }
  // Sentiments are coded by their place in SENTIMENTS.
  const sentiment = (name: (typeof SENTIMENTS)[number]) => t.bySentiment[SENTIMENTS.indexOf(name)];
  return {
    summary: {
      total: t.total,
      by_status: statusCounts(t.byStatus),
      by_sentiment: { positive: sentiment('positive'), neutral: sentiment('neutral'), negative: sentiment('negative') },
      duration: durationFigures(durationCounts),
      cost_total: t.costMicros / 1_000_000,
      // Milliseconds, as the pg driver reads a timestamptz.
      first_start: t.total === 0 ? null : new Date(Math.floor(t.first / 1000)),
      last_start: t.total === 0 ? null : new Date(Math.floor(t.last / 1000)),
      outcomes: ranked(outcomeNames, t.byOutcome).map((x) => ({ outcome: x.name, count: x.count })),
      topics: ranked(topicNames, t.byTopic).slice(0, MAX_TOP_TOPICS).map((x) => ({ topic: x.name, count: x.count })),
      histogram: histogramOf(durationCounts),
    },
    hours: [...perHour].map(([slot, counts]) => ({ ...statusCounts(counts), slot })),
  };
}
