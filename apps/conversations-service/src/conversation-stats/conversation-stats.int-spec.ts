import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ConversationsRpc, type CallEvent, type ConversationStats, type RawQuery } from '@voice/contracts';
import { DEFAULT_TUNING, SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { GetConversationStatsHandler } from './conversation-stats.handler.js';
import { GetConversationStats } from './conversation-stats.query.js';
import { StatsMemory } from './stats-memory.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

type Status = 'in_progress' | 'completed' | 'failed' | 'abandoned';
/** What a generated call is by construction: its events are built from it, the expected figures computed from it. */
interface Call {
  id: string;
  agent: string;
  start: string;
  status: Status;
  duration: number;
  sentiment?: 'positive' | 'neutral' | 'negative';
  outcome?: string;
  topics: string[];
  cost?: number;
  summary?: string;
  events: CallEvent[];
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(count: number, agents: string[], prefix: string, seed: number): Call[] {
  const rnd = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)];
  const topicPool = Array.from({ length: 26 }, (_, i) => `Topic${String(i).padStart(2, '0')}`);
  const calls: Call[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    const agent = pick(agents);
    // Five days from 2025-03-01, with most calls in the first two (so an hourly range has data).
    const offsetSeconds = Math.floor((rnd() < 0.6 ? rnd() * 2 : rnd() * 5) * 86_400);
    const start = new Date(Date.parse('2025-03-01T00:00:00Z') + offsetSeconds * 1000).toISOString();
    const status = pick<Status>(['completed', 'completed', 'completed', 'failed', 'abandoned', 'in_progress']);
    const duration = status === 'abandoned' ? 0 : pick([0, 5, 29, 30, 59, 60, 61, 119, 120, 240, 299, 300, 450, 599, 600, 1200, 1799, 1800, 4000]);
    const sentiment = status === 'abandoned' || rnd() < 0.2 ? undefined : pick(['positive', 'neutral', 'negative'] as const);
    const outcome = status === 'completed' && rnd() < 0.8 ? pick(['resolved', 'appointment_booked', 'escalated', 'voicemail']) : undefined;
    // Up to four topics, one sometimes repeated in another case (counted once).
    const topics = status === 'abandoned' ? [] : [...new Set(Array.from({ length: Math.floor(rnd() * 5) }, () => pick(topicPool)))];
    if (topics.length > 0 && rnd() < 0.3) topics.push(topics[0].toUpperCase());
    const cost = status !== 'in_progress' && rnd() < 0.7 ? Math.round(rnd() * 10_000) / 10_000 : undefined;
    const c = callEvents(id, agent, start);
    const costData = cost === undefined ? {} : { cost: { amount: cost, currency: 'USD' as const } };
    const events: CallEvent[] = [c.started(`+1415555${String(1000 + i).slice(-4)}`)];
    // Every third completed call mentions a refund (what the search cases look for).
    const summary = status === 'completed' ? (i % 3 === 0 ? `Refund issued, order ${i}` : `Order ${i} handled`) : undefined;
    if (status === 'completed') events.push(c.ended(Math.max(duration, 1), { duration, sentiment, outcome, topics, summary, ...costData }));
    if (status === 'failed') {
      events.push(c.progress(1, { sentiment, topics }));
      events.push(c.failed(Math.max(duration, 2), { duration, ...costData }));
    }
    if (status === 'abandoned') events.push(c.abandoned(1, { reason: 'no_answer', ...costData }));
    if (status === 'in_progress') events.push(c.progress(1, { duration, sentiment, topics }));
    calls.push({ id, agent, start, status, duration, sentiment, outcome, topics, cost, summary, events });
  }
  return calls;
}

/** Linear interpolation between the closest ranks (PostgreSQL's percentile_cont). */
function percentile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** The expected answer, computed in TypeScript from the calls as constructed. */
function expected(calls: Call[], range: { from?: string; to?: string; bucket?: 'hour' | 'day' } = {}): ConversationStats {
  const statuses: Status[] = ['in_progress', 'completed', 'failed', 'abandoned'];
  const countBy = <K extends string>(keys: readonly K[], key: (c: Call) => K | undefined) =>
    Object.fromEntries(keys.map((k) => [k, calls.filter((c) => key(c) === k).length])) as Record<K, number>;
  const tally = (values: string[]) => {
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  };
  const durations = calls.map((c) => c.duration).sort((a, b) => a - b);
  const round2 = (x: number) => Math.round(x * 100) / 100;
  const bounds: Array<[number, number | null]> = [[0, 30], [30, 60], [60, 120], [120, 300], [300, 600], [600, 1800], [1800, null]];

  const starts = calls.map((c) => Date.parse(c.start));
  const fromMs = range.from ? Date.parse(range.from) : starts.length ? Math.min(...starts) : undefined;
  const toMs = range.to ? Date.parse(range.to) : starts.length ? Math.max(...starts) : undefined;
  const bucket = range.bucket ?? (fromMs !== undefined && toMs! - fromMs > 48 * 3_600_000 ? 'day' : 'hour');
  const size = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const points: ConversationStats['timeline']['points'] = [];
  if (fromMs !== undefined && toMs !== undefined) {
    for (let t = Math.floor(fromMs / size) * size; t <= toMs; t += size) {
      const inBucket = calls.filter((c) => Date.parse(c.start) >= t && Date.parse(c.start) < t + size);
      points.push({ start: new Date(t).toISOString(), ...Object.fromEntries(statuses.map((s) => [s, inBucket.filter((c) => c.status === s).length])) } as never);
    }
  }
  return {
    total: calls.length,
    by_status: countBy(statuses, (c) => c.status),
    by_sentiment: { ...countBy(['positive', 'neutral', 'negative'] as const, (c) => c.sentiment), unknown: calls.filter((c) => !c.sentiment).length },
    by_outcome: Object.fromEntries(tally(calls.flatMap((c) => (c.outcome ? [c.outcome] : [])))),
    top_topics: tally(calls.flatMap((c) => [...new Set(c.topics.map((t) => t.toLowerCase()))])).slice(0, 20).map(([topic, count]) => ({ topic, count })),
    duration: calls.length === 0 ? { avg: null, p50: null, p90: null }
      : { avg: round2(durations.reduce((a, b) => a + b, 0) / durations.length), p50: round2(percentile(durations, 0.5)), p90: round2(percentile(durations, 0.9)) },
    duration_histogram: bounds.map(([min, max]) => ({ min, max, count: calls.filter((c) => c.duration >= min && (max === null || c.duration < max)).length })),
    timeline: { bucket, points },
    cost: { total: calls.reduce((sum, c) => sum + (c.cost ?? 0), 0), currency: 'USD' },
  };
}

/** Every figure equal; the floating ones (rounded by the database, or summed in floating point here) within rounding. */
function expectSame(actual: ConversationStats, wanted: ConversationStats): void {
  const { duration, cost, ...exact } = actual;
  const { duration: wantedDuration, cost: wantedCost, ...wantedExact } = wanted;
  expect(exact).toEqual(wantedExact);
  // Key order is part of the answer: most frequent outcome first.
  expect(Object.keys(actual.by_outcome)).toEqual(Object.keys(wanted.by_outcome));
  for (const key of ['avg', 'p50', 'p90'] as const) {
    if (wantedDuration[key] === null) expect(duration[key]).toBeNull();
    else expect([key, Math.abs(duration[key]! - wantedDuration[key]!) <= 0.011]).toEqual([key, true]);
  }
  expect(cost.currency).toBe('USD');
  expect(cost.total).toBeCloseTo(wantedCost.total, 6);
}

// Both ways the service answers: SQL (small accounts, search/caller/cost filters) and the columns in memory (large accounts).
describe.each([
  ['SQL', 1_000_000_000],
  ['columns in memory', 0],
])('GET /v1/conversations/stats by %s (independent computation)', (_way, statsMemoryMinRows) => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const other = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];
  const otherAgent = `agt_${randomUUID()}`;
  let calls: Call[];
  let foreign: Call[];
  const stats = (accountId: string, query: RawQuery = {}) => h.rpc<ConversationStats>(ConversationsRpc.stats, { account_id: accountId, query });

  beforeAll(async () => {
    h = await startHarness({ tuning: { statsMemoryMinRows } });
    await h.publishKnownAgent({ agent_id: agents[0], account_id: account, name: 'Alpha' });
    await h.publishKnownAgent({ agent_id: agents[1], account_id: account, name: 'Beta' });
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: other, name: 'Other' });
    calls = generate(160, agents, `s${randomUUID().slice(0, 6)}`, 11);
    foreign = generate(15, [otherAgent], `x${randomUUID().slice(0, 6)}`, 5);
    await h.publishCallEvents([...calls, ...foreign].flatMap((c) => c.events));
    // Every event consumed: the unfiltered answer is the expected one.
    await h.eventually(async () => expectSame(await stats(account), expected(calls)), 30_000);
    await h.eventually(async () => expectSame(await stats(other), expected(foreign)), 10_000);
    // The columns are loaded in the background by a first request; from here on they answer (or SQL, for the SQL way).
    const memory = h.service.app.get(GetConversationStatsHandler).memory;
    await memory.warm(account);
    await memory.warm(other);
    expect(memory.rowsHeld).toBe(statsMemoryMinRows === 0 ? calls.length + foreign.length : 0);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('the generated set is varied: every status, sentiment, histogram bucket, more than 20 topics, days and hours', () => {
    const all = expected(calls);
    for (const count of [...Object.values(all.by_status), ...Object.values(all.by_sentiment), ...all.duration_histogram.map((b) => b.count)]) {
      expect(count).toBeGreaterThan(0);
    }
    expect(new Set(calls.flatMap((c) => c.topics.map((t) => t.toLowerCase()))).size).toBeGreaterThan(20);
    expect(all.timeline).toMatchObject({ bucket: 'day' });
    expect(all.timeline.points.length).toBeGreaterThanOrEqual(5);
  });

  it('with no filter: every figure, by day over the data’s own range', async () => {
    const answer = await stats(account);
    expectSame(answer, expected(calls));
    expect(answer.timeline.points[0].start).toBe('2025-03-01T00:00:00.000Z');
  });

  const topic = () => expected(calls).top_topics[0].topic;
  const cases: Array<[string, () => RawQuery, (c: Call) => boolean, { from?: string; to?: string; bucket?: 'hour' | 'day' }]> = [
    // Every row has four elements: jest would take a missing fourth for the done callback.
    ['status', () => ({ status: 'completed' }), (c) => c.status === 'completed', {}],
    ['agent_id', () => ({ agent_id: agents[1] }), (c) => c.agent === agents[1], {}],
    ['date range within two days (hourly, zeros filled)', () => ({ start_date: '2025-03-01T06:00:00Z', end_date: '2025-03-02' }),
      (c) => c.start >= '2025-03-01T06:00:00.000Z' && c.start <= '2025-03-02T23:59:59.999Z', { from: '2025-03-01T06:00:00Z', to: '2025-03-02T23:59:59.999Z' }],
    ['date range, bucket=day', () => ({ start_date: '2025-02-27', end_date: '2025-03-02T12:00:00Z', bucket: 'day' }),
      (c) => c.start <= '2025-03-02T12:00:00.000Z', { from: '2025-02-27T00:00:00Z', to: '2025-03-02T12:00:00Z', bucket: 'day' }],
    ['start_date only (to the data’s last start)', () => ({ start_date: '2025-03-03' }), (c) => c.start >= '2025-03-03T00:00:00.000Z', { from: '2025-03-03T00:00:00Z' }],
    ['topic (case-insensitive)', () => ({ topic: topic().toUpperCase() }), (c) => c.topics.some((t) => t.toLowerCase() === topic()), {}],
    ['topic and status, bucket=hour', () => ({ topic: topic(), status: 'failed', bucket: 'hour' }),
      (c) => c.status === 'failed' && c.topics.some((t) => t.toLowerCase() === topic()), { bucket: 'hour' }],
    ['sentiment and durations', () => ({ sentiment: 'positive', min_duration: '30', max_duration: '600' }),
      (c) => c.sentiment === 'positive' && c.duration >= 30 && c.duration <= 600, {}],
    ['outcome', () => ({ outcome: 'resolved' }), (c) => c.outcome === 'resolved', {}],
    ['an instant in nanoseconds (rounded to the microsecond as PostgreSQL reads it)', () => ({ start_date: `${calls[3].start.slice(0, 19)}.000000500Z` }),
      (c) => c.start >= calls[3].start, {}],
    ['has_transcript=false', () => ({ has_transcript: 'false' }), () => true, {}],
    ['cost (SQL in both)', () => ({ min_cost: '0.5' }), (c) => c.cost !== undefined && c.cost >= 0.5, {}],
    ['search', () => ({ search: 'REFUND' }), (c) => c.summary?.startsWith('Refund') === true, {}],
    ['search and agent', () => ({ search: 'refund issued', agent_id: agents[0] }), (c) => c.summary?.startsWith('Refund') === true && c.agent === agents[0], {}],
  ];

  it.each(cases)('filter: %s', async (_name, query, predicate, range) => {
    const selected = calls.filter(predicate);
    expect(selected.length).toBeGreaterThan(0);
    expectSame(await stats(account, query()), expected(selected, range));
  });

  it('selecting nothing: zeros, null durations, no points without a date range; zero points over a given range', async () => {
    const none = await stats(account, { agent_id: otherAgent });
    expectSame(none, expected([]));
    expect(none).toMatchObject({ total: 0, duration: { avg: null, p50: null, p90: null }, timeline: { bucket: 'hour', points: [] }, by_outcome: {}, top_topics: [] });
    const empty = await stats(account, { start_date: '2024-01-01', end_date: '2024-01-03' });
    expect(empty.timeline.bucket).toBe('day');
    expect(empty.timeline.points.map((p) => [p.start, p.completed])).toEqual([
      ['2024-01-01T00:00:00.000Z', 0], ['2024-01-02T00:00:00.000Z', 0], ['2024-01-03T00:00:00.000Z', 0],
    ]);
  });

  it('another account sees only its own conversations', async () => {
    expectSame(await stats(other), expected(foreign));
    expectSame(await stats(other, { agent_id: agents[0] }), expected([]));
  });

  it.each([
    [{ bucket: 'week' }, { code: 'invalid_parameter', field: 'bucket', valid_values: ['hour', 'day'] }],
    [{ start_date: '2020-01-01', bucket: 'hour' }, { code: 'invalid_parameter', field: 'bucket' }],
    [{ start_date: '1990-01-01' }, { code: 'invalid_parameter', field: 'bucket' }],
    [{ page: '2' }, { code: 'invalid_parameter', field: 'page' }],
    [{ sort_by: 'duration' }, { code: 'invalid_parameter', field: 'sort_by' }],
    [{ status: 'done' }, { code: 'invalid_parameter', field: 'status' }],
    [{ end_date: '2025-02-30' }, { code: 'invalid_date_format', field: 'end_date' }],
  ] as Array<[RawQuery, object]>)('rejects %j', async (query, error) => {
    await expect(stats(account, query)).rejects.toEqual(expect.objectContaining({ ...error, message: expect.any(String) }));
  });
});

describe('stats from columns in memory stay equal to the read model (SQL, on the same database)', () => {
  let h: Harness;
  let bySql: GetConversationStatsHandler;
  const account = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];
  const inMemory = (query: RawQuery = {}) => h.rpc<ConversationStats>(ConversationsRpc.stats, { account_id: account, query });
  const queries = (topic: string): RawQuery[] => [{}, { agent_id: agents[0] }, { status: 'completed' }, { topic }, { sentiment: 'negative', bucket: 'hour' }, { search: 'refund' }];
  /** Every query answered alike by the columns (the service) and by SQL, and SQL's total is `total`. */
  const agree = async (total: number, topic = 'topic00') => {
    for (const query of queries(topic)) {
      const [memory, sql] = [await inMemory(query), await bySql.execute(new GetConversationStats(account, query))];
      expect(memory).toEqual(sql);
    }
    expect((await bySql.execute(new GetConversationStats(account, {}))).total).toBe(total);
    // And the service's answers did come from its columns.
    expect(h.service.app.get(GetConversationStatsHandler).memory.rowsHeld).toBe(total);
  };

  beforeAll(async () => {
    h = await startHarness({ tuning: { statsMemoryMinRows: 0 } });
    const { dataSource } = h.service.app.get<ServiceContext>(SERVICE_CONTEXT);
    bySql = new GetConversationStatsHandler({ dataSource, tuning: { ...DEFAULT_TUNING, statsMemoryMinRows: 1_000_000_000 } });
    await h.publishKnownAgent({ agent_id: agents[0], account_id: account, name: 'Alpha' });
    await h.publishKnownAgent({ agent_id: agents[1], account_id: account, name: 'Beta' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('after loading: calls recorded and calls changed since are in the next answer', async () => {
    const first = generate(80, agents, `m${randomUUID().slice(0, 6)}`, 21);
    await h.publishCallEvents(first.flatMap((c) => c.events));
    await h.eventually(async () => expectSame(await inMemory(), expected(first)), 30_000);

    // The calls in progress end (status, duration, outcome, topics and cost change) and new calls arrive.
    const ending = first.filter((c) => c.status === 'in_progress');
    expect(ending.length).toBeGreaterThan(0);
    const endings = ending.map((c) => callEvents(c.id, c.agent, c.start).ended(95, {
      duration: 95, outcome: 'resolved', topics: ['Topic00', 'late'], cost: { amount: 0.25, currency: 'USD' },
    }));
    const second = generate(60, agents, `n${randomUUID().slice(0, 6)}`, 22);
    await h.publishCallEvents([...endings, ...second.flatMap((c) => c.events)]);
    await h.eventually(async () => {
      expect((await bySql.execute(new GetConversationStats(account, {}))).by_status.in_progress).toBe(second.filter((c) => c.status === 'in_progress').length);
      await agree(140);
    }, 30_000);
  });

  it('rows removed from the table (as a projection rebuild can) are gone from the next answer', async () => {
    await h.db.query(`WITH gone AS (DELETE FROM conversations.conversations WHERE account_id = $1 AND id IN (
                        SELECT id FROM conversations.conversations WHERE account_id = $1 ORDER BY id LIMIT 5) RETURNING id)
                      UPDATE conversations.account_totals SET conversations = conversations - (SELECT count(*) FROM gone) WHERE account_id = $1`, [account]);
    // The first answer after finds the columns stale: SQL answers while they are loaded again.
    await h.eventually(() => agree(135), 10_000);
  });

  it('a write that was running during an answer (and committed after it) is in the next answer', async () => {
    const writer = await h.db.connect();
    try {
      await writer.query('BEGIN');
      const { rows } = await writer.query(
        `UPDATE conversations.conversations SET status = 'failed', duration = 4321
          WHERE account_id = $1 AND id = (SELECT min(id) FROM conversations.conversations WHERE account_id = $1 AND status <> 'failed')
          RETURNING id`, [account]);
      expect(rows).toHaveLength(1);
      // A later transaction commits meanwhile, so the writer's id is inside the next snapshot's range (between its xmin and xmax).
      await h.db.query(`UPDATE conversations.conversations SET duration = duration WHERE account_id = $1 AND id = (SELECT max(id) FROM conversations.conversations WHERE account_id = $1)`, [account]);
      // Asked while the writer's transaction is open: that answer cannot see the write (its snapshot's xmin is at most the writer's id).
      const before = await inMemory();
      await writer.query('COMMIT');
      const after = await inMemory();
      expect(after.by_status.failed).toBe(before.by_status.failed + 1);
      expect(after.duration_histogram.at(-1)!.count).toBe(before.duration_histogram.at(-1)!.count + 1);
      await agree(135);
    } finally {
      writer.release();
    }
  });

  it('answers asked while calls are being recorded miss none of them once the writes stop', async () => {
    const third = generate(240, agents, `p${randomUUID().slice(0, 6)}`, 23);
    let asking = true;
    const answers: ConversationStats[] = [];
    const asker = (async () => {
      while (asking) answers.push(await inMemory());
    })();
    for (let i = 0; i < third.length; i += 30) await h.publishCallEvents(third.slice(i, i + 30).flatMap((c) => c.events));
    await h.eventually(async () => expect((await bySql.execute(new GetConversationStats(account, {}))).total).toBe(375), 30_000);
    await new Promise((r) => setTimeout(r, 500));
    asking = false;
    await asker;
    // Answers were given while the counts grew, each one consistent in itself.
    expect(new Set(answers.map((a) => a.total)).size).toBeGreaterThan(1);
    for (const a of answers) expect(Object.values(a.by_status).reduce((x, y) => x + y, 0)).toBe(a.total);
    await h.eventually(() => agree(375), 30_000);
  });

  it('once closed, its load in progress ends without holding the account, no load starts and SQL answers', async () => {
    const { dataSource } = h.service.app.get<ServiceContext>(SERVICE_CONTEXT);
    const memory = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30 });
    await memory.warm(account);
    expect(memory.rowsHeld).toBe(375);
    const reloading = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30 });
    const loading = reloading.warm(account);
    await reloading.close();
    await loading;
    await reloading.warm(account);
    expect(reloading.rowsHeld).toBe(0);
    expect(await reloading.read(account, { page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' }, () => undefined)).toBeUndefined();
    await memory.close();
    expect(memory.rowsHeld).toBe(0);
  });
});
