/** The stats figures from the sums of the selected conversations (a pass over the columns, or rollup cells). Pure. */
import { CONVERSATION_STATUSES, MAX_TOP_TOPICS, SENTIMENTS } from '@voice/contracts';
import type { StatsSummary, TimelineRow } from './conversation-stats.store.js';
import { durationFigures, histogramOf } from './conversation-stats.rules.js';
import type { FigureSums } from './day-rollups.js';
import type { RowTopics } from '../conversation-filters/conversation-filters.js';

const HOUR_US = 3_600_000_000;

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

/** The columns a pass over rows reads (stats-columns.ts). */
export interface TalliedColumns {
  status: Uint8Array;
  sentiment: Uint8Array;
  outcome: Int32Array;
  start: Float64Array;
  duration: Int32Array;
  cost: Float64Array;
  topics: RowTopics;
}

/** Adds the rows (`rows` of them in order, or those listed) into `sums`; their count, cost, first and last start. */
export function tallyRows(c: TalliedColumns, rows: Int32Array | number, sums: FigureSums): Omit<Tallies, keyof FigureSums> {
  const { byStatus, bySentiment, byOutcome, byTopic, durations, hours, firstHour } = sums;
  const { at: topicAt, count: topicCount, pool: topicPool } = c.topics;
  const statuses = byStatus.length;
  const listed = typeof rows === 'number' ? undefined : rows;
  const count = listed ? listed.length : (rows as number);
  let [costMicros, first, last] = [0, Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    const row = listed ? listed[i] : i;
    const topicsFrom = topicAt[row];
    const topicsTo = topicsFrom + topicCount[row];
    const start = c.start[row];
    const s = c.status[row];
    byStatus[s]++;
    bySentiment[c.sentiment[row]]++;
    if (c.outcome[row] >= 0) byOutcome[c.outcome[row]]++;
    for (let t = topicsFrom; t < topicsTo; t++) byTopic[topicPool[t]]++;
    durations.add(c.duration[row]);
    const cost = c.cost[row];
    if (cost === cost) costMicros += cost;
    if (start < first) first = start;
    if (start > last) last = start;
    hours.add((Math.floor(start / HOUR_US) - firstHour) * statuses + s);
  }
  return { total: count, costMicros, first, last };
}
