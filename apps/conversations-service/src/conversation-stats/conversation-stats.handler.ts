import { Inject, Optional, type OnModuleDestroy } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ConversationStats, StatsBucket } from '@voice/contracts';
import { ServiceFailure } from '@voice/service-kit';
import { ACCOUNT_COLUMNS, DEFAULT_TUNING, readFor, SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { parseStatsQuery } from './conversation-stats.params.js';
import { GetConversationStats } from './conversation-stats.query.js';
import { fillHistogram, fillTimeline, instantMs, timelineBucket, timelineMustFit } from './conversation-stats.rules.js';
import { readStats, type StatsSummary } from './conversation-stats.store.js';
import { StatsMemory } from './stats-memory.js';

/**
 * Parse the query (the list's filters and bucket), read every figure in one snapshot
 * (conversation-stats.store.ts), answer it in the public shape. The timeline's range is
 * start_date..end_date, each bound that is not given taken from the filtered data's own
 * first/last start time; with neither a bound nor data there are no points. Large accounts are answered
 * from columns in memory kept equal to the read model (stats-memory.ts), the others and the filters those
 * columns do not hold (search, caller, cost) by SQL.
 */
/** The columns in memory as the context's tuning sizes them. */
export function statsMemoryOf(ctx: Pick<ServiceContext, 'dataSource'> & Partial<Pick<ServiceContext, 'tuning'>>): StatsMemory {
  const tuning = ctx.tuning ?? DEFAULT_TUNING;
  return new StatsMemory(ctx.dataSource, { minRows: tuning.statsMemoryMinRows, budgetBytes: tuning.statsMemoryBudgetMb * 2 ** 20 });
}

@QueryHandler(GetConversationStats)
export class GetConversationStatsHandler implements IQueryHandler<GetConversationStats, ConversationStats>, OnModuleDestroy {
  /** Public for its figures (rows held). */
  readonly memory: StatsMemory;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'dataSource'> & Partial<Pick<ServiceContext, 'tuning' | 'reads'>>,
    @Optional() @Inject(ACCOUNT_COLUMNS) memory?: StatsMemory,
  ) {
    this.memory = memory ?? statsMemoryOf(ctx);
  }

  /** A background load of an account's columns ends before the database pool closes. */
  onModuleDestroy(): Promise<void> {
    return this.memory.close();
  }

  async execute({ accountId, query }: GetConversationStats): Promise<ConversationStats> {
    const parsed = parseStatsQuery(query);
    if (!parsed.ok) throw new ServiceFailure(parsed.problem);
    const { filter, bucket: requested } = parsed.value;
    let bucket: StatsBucket = requested ?? 'hour';
    let range: { first: number; last: number } | undefined;
    const decideTimeline = (s: StatsSummary) => {
      const from = filter.start_date !== undefined ? instantMs(filter.start_date) : s.first_start?.getTime();
      const to = filter.end_date !== undefined ? instantMs(filter.end_date) : s.last_start?.getTime();
      const [fromMs, toMs] = [from ?? to, to ?? from];
      if (fromMs === undefined || toMs === undefined) return undefined;
      bucket = timelineBucket(requested, fromMs, toMs);
      const fit = timelineMustFit(bucket, fromMs, toMs);
      if ('problem' in fit) throw new ServiceFailure(fit.problem);
      range = fit;
      return { bucket, ...fit };
    };
    // The columns in memory load and catch up on the primary (stats-memory.ts); the SQL path reads where the list does.
    const { summary, timeline } = (await this.memory.read(accountId, filter, decideTimeline))
      ?? (await readFor(this.ctx, accountId, (db) => readStats(db, accountId, filter, decideTimeline)));
    const r = range as { first: number; last: number } | undefined;
    const s = summary;
    return {
      total: s.total,
      by_status: s.by_status,
      by_sentiment: { ...s.by_sentiment, unknown: s.total - s.by_sentiment.positive - s.by_sentiment.neutral - s.by_sentiment.negative },
      by_outcome: Object.fromEntries(s.outcomes.map((o) => [o.outcome, o.count])),
      top_topics: s.topics,
      duration: s.total === 0 ? { avg: null, p50: null, p90: null } : s.duration,
      duration_histogram: fillHistogram(s.histogram),
      timeline: { bucket, points: r ? fillTimeline(bucket, r.first, r.last, timeline) : [] },
      cost: { total: s.cost_total, currency: 'USD' },
    };
  }
}
