import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CONVERSATION_STATUSES, MAX_TOP_TOPICS } from '@voice/contracts';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import { durationFigures, histogramOf } from './conversation-stats.rules.js';
import { answeredInMemory, BYTES_PER_ROW, costMicros, instantMicros, StatsColumns, type StatsRow } from './stats-columns.js';

const HOUR_US = 3_600_000_000;
const T0 = Date.parse('2025-03-01T00:00:00Z') * 1000;
const RANK = { negative: 0, neutral: 1, positive: 2 } as const;
const base: ConversationListFilter = { page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' };

const row = fc.record({
  id: fc.integer({ min: 0, max: 40 }).map((n) => `c${n}`),
  agent_id: fc.constantFrom('agt_a', 'agt_b', 'agt_c'),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  start_us: fc.integer({ min: 0, max: 72 * 3600 }).map((s) => T0 + s * 1_000_000 + (s % 7)),
  duration: fc.integer({ min: 0, max: 2000 }),
  sentiment: fc.constantFrom(null, 'positive', 'neutral', 'negative'),
  outcome: fc.constantFrom(null, 'resolved', 'escalated', 'Resolved'),
  topics: fc.uniqueArray(fc.constantFrom('billing', 'sales', 'refund', 'z', 'é'), { maxLength: 3 }),
  has_recording: fc.boolean(),
  has_transcript: fc.boolean(),
  cost_micros: fc.option(fc.integer({ min: 0, max: 5_000_000 }), { nil: null }),
}).map((r): StatsRow => ({ ...r, sentiment_rank: r.sentiment === null ? null : RANK[r.sentiment as keyof typeof RANK] }));

const iso = (us: number) => `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}000Z`;
const filter = fc.record({
  agent_id: fc.constantFrom('agt_a', 'agt_b', 'agt_unknown'),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  sentiment: fc.constantFrom('positive', 'neutral', 'negative'),
  outcome: fc.constantFrom('resolved', 'Resolved', 'none_such'),
  min_duration: fc.integer({ min: 0, max: 2000 }),
  max_duration: fc.integer({ min: 0, max: 2000 }),
  start_date: fc.integer({ min: 0, max: 72 * 3600 }).map((s) => iso(T0 + s * 1_000_000)),
  end_date: fc.integer({ min: 0, max: 72 * 3600 }).map((s) => iso(T0 + s * 1_000_000 + 3)),
  has_recording: fc.boolean(),
  has_transcript: fc.boolean(),
  topic: fc.constantFrom('billing', 'refund', 'é', 'none_such'),
}, { requiredKeys: [] }).map((f) => ({ ...base, ...f }) as ConversationListFilter);

/** The figures computed the plain way: filter the latest version of each row, then count. */
function reference(rows: StatsRow[], f: ConversationListFilter) {
  const latest = [...new Map(rows.map((r) => [r.id, r])).values()];
  const from = f.start_date === undefined ? -Infinity : instantMicros(f.start_date);
  const to = f.end_date === undefined ? Infinity : instantMicros(f.end_date);
  const selected = latest.filter((r) =>
    r.start_us >= from && r.start_us <= to
    && (f.agent_id === undefined || r.agent_id === f.agent_id)
    && (f.status === undefined || r.status === f.status)
    && (f.sentiment === undefined || r.sentiment_rank === RANK[f.sentiment])
    && (f.outcome === undefined || r.outcome === f.outcome)
    && (f.min_duration === undefined || r.duration >= f.min_duration)
    && (f.max_duration === undefined || r.duration <= f.max_duration)
    && (f.has_recording === undefined || r.has_recording === f.has_recording)
    && (f.has_transcript === undefined || r.has_transcript === f.has_transcript)
    && (f.topic === undefined || r.topics.includes(f.topic)));
  const tally = (values: string[]) => {
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  };
  const durations = [...tally(selected.map((r) => String(r.duration)))].map(([d, count]) => ({ duration: Number(d), count }));
  const hours = new Map<number, Record<string, number>>();
  for (const r of selected) {
    const slot = Math.floor(r.start_us / HOUR_US);
    const counts = hours.get(slot) ?? Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, 0]));
    counts[r.status]++;
    hours.set(slot, counts);
  }
  const starts = selected.map((r) => r.start_us);
  return {
    summary: {
      total: selected.length,
      by_status: Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, selected.filter((r) => r.status === s).length])),
      by_sentiment: Object.fromEntries((['positive', 'neutral', 'negative'] as const).map((s) => [s, selected.filter((r) => r.sentiment === s).length])),
      duration: durationFigures(durations),
      cost_total: selected.reduce((sum, r) => sum + (r.cost_micros ?? 0), 0) / 1_000_000,
      first_start: selected.length ? new Date(Math.floor(Math.min(...starts) / 1000)) : null,
      last_start: selected.length ? new Date(Math.floor(Math.max(...starts) / 1000)) : null,
      outcomes: tally(selected.flatMap((r) => (r.outcome === null ? [] : [r.outcome]))).map(([outcome, count]) => ({ outcome, count })),
      topics: tally(selected.flatMap((r) => r.topics)).slice(0, MAX_TOP_TOPICS).map(([topic, count]) => ({ topic, count })),
      histogram: histogramOf(durations),
    },
    hours: [...hours].map(([slot, counts]) => ({ slot, ...counts })).sort((a, b) => a.slot - b.slot),
  };
}

describe('StatsColumns', () => {
  it('answers every filter exactly as the plain computation over the latest version of each row', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 120 }), fc.array(filter, { minLength: 1, maxLength: 4 }), (rows, filters) => {
        const columns = new StatsColumns();
        for (const r of rows) columns.put(r);
        expect(columns.size).toBe(new Set(rows.map((r) => r.id)).size);
        for (const f of filters) {
          const { summary, hours } = columns.summarize(f);
          const wanted = reference(rows, f);
          expect({ ...summary, histogram: [...summary.histogram].sort() }).toEqual({ ...wanted.summary, histogram: [...wanted.summary.histogram].sort() });
          expect([...hours].sort((a, b) => a.slot - b.slot)).toEqual(wanted.hours);
        }
      }),
      { numRuns: 300 },
    );
  });

  describe('with day rollups (whole UTC days, alone or with one status, one topic or one agent, from pre-summed cells)', () => {
    const DAY_US = 86_400_000_000;
    const day = fc.integer({ min: -1, max: 3 });
    const wholeDays = fc.record({
      start_date: day.map((d) => iso(T0 + d * DAY_US)),
      end_date: day.map((d) => iso(T0 + (d + 1) * DAY_US - 1)),
      status: fc.constantFrom(...CONVERSATION_STATUSES),
      topic: fc.constantFrom('billing', 'refund', 'é', 'none_such'),
      agent_id: fc.constantFrom('agt_a', 'agt_b', 'agt_unknown'),
    }, { requiredKeys: [] }).filter((f) => [f.status, f.topic, f.agent_id].filter((v) => v !== undefined).length <= 1)
      .map((f) => ({ ...base, ...f }) as ConversationListFilter);

    it('answers as the plain computation while rows are added, replaced and moved between days, statuses and topics', () => {
      fc.assert(
        fc.property(
          fc.array(row, { maxLength: 100 }), fc.array(row, { maxLength: 60 }), fc.array(fc.oneof(wholeDays, filter), { minLength: 1, maxLength: 4 }),
          (before, after, filters) => {
            // Every agent asked for gets its own cells.
            const columns = new StatsColumns(0, 0, 0);
            const check = (rows: StatsRow[]) => {
              for (const f of filters) {
                const { summary, hours } = columns.summarize(f);
                const wanted = reference(rows, f);
                expect({ ...summary, histogram: [...summary.histogram].sort() }).toEqual({ ...wanted.summary, histogram: [...wanted.summary.histogram].sort() });
                expect([...hours].sort((a, b) => a.slot - b.slot)).toEqual(wanted.hours);
              }
            };
            for (const r of before) columns.put(r);
            check(before);
            // The same ids again: each replaced row leaves its cells (possibly the one holding a day's first or last start).
            for (const r of after) columns.put(r);
            check([...before, ...after]);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('finds a day’s first and last start again once the rows that held them moved away', () => {
      const columns = new StatsColumns(0, 0);
      const at = (id: string, seconds: number, status: StatsRow['status'] = 'completed'): StatsRow => ({
        id, agent_id: 'a', status, start_us: T0 + seconds * 1_000_000, duration: 10, sentiment: null, sentiment_rank: null, outcome: null,
        topics: ['billing'], has_recording: false, has_transcript: false, cost_micros: null,
      });
      for (const [id, seconds] of [['early', 60], ['middle', 3600], ['late', 7200]] as const) columns.put(at(id, seconds));
      const day1 = { ...base, start_date: iso(T0), end_date: iso(T0 + DAY_US - 1) };
      expect(columns.summarize(day1).summary).toMatchObject({ total: 3, first_start: new Date(T0 / 1000 + 60_000), last_start: new Date(T0 / 1000 + 7_200_000) });
      // The earliest moves to the next day, the latest to another status: the completed cell's ends were theirs.
      columns.put(at('early', 86_400 + 5));
      columns.put(at('late', 7200, 'failed'));
      expect(columns.summarize({ ...day1, status: 'completed' }).summary).toMatchObject({ total: 1, first_start: new Date(T0 / 1000 + 3_600_000), last_start: new Date(T0 / 1000 + 3_600_000) });
      expect(columns.summarize({ ...day1, topic: 'billing' }).summary).toMatchObject({ total: 2, first_start: new Date(T0 / 1000 + 3_600_000), last_start: new Date(T0 / 1000 + 7_200_000) });
    });

    it('are counted in the memory the columns take', () => {
      const columns = new StatsColumns(0, 0);
      const plain = new StatsColumns(0, Infinity);
      for (let i = 0; i < 1_000; i++) {
        const r: StatsRow = { id: `c${i}`, agent_id: 'a', status: 'completed', start_us: T0 + i * 600_000_000, duration: i % 300, sentiment: null, sentiment_rank: null,
          outcome: null, topics: ['billing'], has_recording: false, has_transcript: false, cost_micros: null };
        columns.put(r);
        plain.put(r);
      }
      expect(columns.summarize(base).summary).toEqual(plain.summarize(base).summary);
      // Seven days of cells, each with its durations (up to 300 s) and 24 hours × statuses.
      expect(columns.bytes - plain.bytes).toBeGreaterThan(7 * 2 * 300 * 4);
    });
  });

  it('answers one agent of a large account (from its rows) as the plain computation, while rows are added and move between agents', () => {
    const byAgent = fc.record({ agent_id: fc.constantFrom('agt_a', 'agt_b', 'agt_c'), status: fc.constantFrom(...CONVERSATION_STATUSES) }, { requiredKeys: ['agent_id'] })
      .map((f) => ({ ...base, ...f }) as ConversationListFilter);
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 80 }), fc.array(row, { maxLength: 40 }), fc.array(byAgent, { minLength: 1, maxLength: 3 }), (before, after, filters) => {
        const columns = new StatsColumns(0, 0);
        const check = (rows: StatsRow[]) => {
          for (const f of filters) expect(columns.summarize(f).summary.by_status).toEqual(reference(rows, f).summary.by_status);
        };
        for (const r of before) columns.put(r);
        check(before);
        for (const r of after) columns.put(r);
        check([...before, ...after]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps answering correctly when rows are replaced many times (their old topics are compacted away)', () => {
    const columns = new StatsColumns();
    for (let i = 0; i < 5_000; i++) {
      columns.put({ id: `c${i % 10}`, agent_id: 'a', status: 'completed', start_us: T0 + i, duration: i % 50, sentiment: null, sentiment_rank: null,
        outcome: null, topics: [`t${i % 3}`, 'always'], has_recording: false, has_transcript: false, cost_micros: null });
    }
    const { summary } = columns.summarize(base);
    expect(summary.total).toBe(10);
    // The last versions are i = 4990…4999: topics t1, t2, t0, t1, t2, t0, t1, t2, t0, t1.
    expect(summary.topics).toEqual([{ topic: 'always', count: 10 }, { topic: 't1', count: 4 }, { topic: 't0', count: 3 }, { topic: 't2', count: 3 }]);
  });

  it('among given rows only (a search’s matches), answers as over those conversations alone', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 80 }), fc.uniqueArray(fc.integer({ min: 0, max: 45 }).map((n) => `c${n}`)), filter, (rows, ids, f) => {
        const columns = new StatsColumns();
        for (const r of rows) columns.put(r);
        const chosen = new Set(ids);
        const { summary } = columns.summarize(f, columns.rowsOf(ids));
        const wanted = reference(rows.filter((r) => chosen.has(r.id)), f);
        expect({ ...summary, histogram: [...summary.histogram].sort() }).toEqual({ ...wanted.summary, histogram: [...wanted.summary.histogram].sort() });
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a remembered search up to date as rows are put with their text, and forgets it when one comes without', () => {
    const text = fc.constantFrom('refund issued', 'booked', 'no refund', '', 'REFUND');
    fc.assert(
      fc.property(fc.array(fc.tuple(row, text), { minLength: 1, maxLength: 60 }), fc.array(fc.tuple(row, text), { maxLength: 60 }), (before, after) => {
        const columns = new StatsColumns();
        for (const [r] of before) columns.put(r);
        const latestText = new Map(before.map(([r, t]) => [r.id, t]));
        const matching = (term: string) => [...latestText].filter(([, t]) => t.includes(term)).map(([id]) => id);
        columns.rememberSearch('refund', columns.rowsOf(matching('refund')));
        for (const [r, t] of after) {
          columns.put(r, t);
          latestText.set(r.id, t);
        }
        expect(columns.searchRows('refund')).toEqual(columns.rowsOf(matching('refund')));
        columns.put(before[0][0]);
        expect(columns.searchRows('refund')).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('answers a remembered search over whole days from its day cells as the plain computation over its matches, while rows are put', () => {
    const text = fc.constantFrom('refund issued', 'booked', 'no refund');
    const DAY_US = 86_400_000_000;
    const days = fc.record({ start_date: fc.integer({ min: 0, max: 2 }).map((d) => iso(T0 + d * DAY_US)), end_date: fc.integer({ min: 0, max: 3 }).map((d) => iso(T0 + d * DAY_US - 1)) }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.array(fc.tuple(row, text), { minLength: 1, maxLength: 60 }), fc.array(fc.tuple(row, text), { maxLength: 60 }), days, (before, after, range) => {
        // Cells for every search and agent however few their rows.
        const columns = new StatsColumns(0, 0, 0);
        const latest = new Map<string, [StatsRow, string]>();
        const put = ([r, t]: [StatsRow, string], withText: boolean) => {
          columns.put(r, withText ? t : undefined);
          latest.set(r.id, [r, t]);
        };
        for (const x of before) put(x, false);
        const matching = () => [...latest.values()].filter(([, t]) => t.includes('refund')).map(([r]) => r);
        columns.rememberSearch('refund', columns.rowsOf(matching().map((r) => r.id)));
        const f = { ...base, ...range, search: 'refund' } as ConversationListFilter;
        const check = () => {
          const { summary, hours } = columns.summarize(f, columns.searchRows('refund'));
          const wanted = reference(matching(), f);
          expect({ ...summary, histogram: [...summary.histogram].sort() }).toEqual({ ...wanted.summary, histogram: [...wanted.summary.histogram].sort() });
          expect([...hours].sort((a, b) => a.slot - b.slot)).toEqual(wanted.hours);
        };
        check();
        // Rows gained, lost, moved between days (the first or last of a day's cell among them) and changed.
        for (const x of after) {
          put(x, true);
          if (x[0].duration % 5 === 0) check();
        }
        check();
      }),
      { numRuns: 300 },
    );
  });

  it('leaves caller and cost filters to SQL', () => {
    expect(answeredInMemory(base)).toBe(true);
    expect(answeredInMemory({ ...base, topic: 'x', agent_id: 'a', search: 'refund', start_date: iso(T0) })).toBe(true);
    for (const extra of [{ caller: '+1' }, { min_cost: '1' }, { max_cost: '1' }]) expect(answeredInMemory({ ...base, ...extra })).toBe(false);
  });
});

describe('costMicros', () => {
  it('reads whole millionths exactly, and nothing finer', () => {
    expect(costMicros('0')).toBe(0);
    expect(costMicros('12')).toBe(12_000_000);
    expect(costMicros('0.0725')).toBe(72_500);
    expect(costMicros('1.000001')).toBe(1_000_001);
    expect(costMicros('1.5000000000')).toBe(1_500_000);
    expect(costMicros('1.0000001')).toBeUndefined();
    expect(costMicros('-1')).toBeUndefined();
    expect(costMicros('1e3')).toBeUndefined();
  });
});

describe('instantMicros', () => {
  it('rounds the fraction to microseconds half to even, as PostgreSQL reads a timestamptz', () => {
    const s = Date.parse('2025-03-01T10:00:00Z') * 1000;
    expect(instantMicros('2025-03-01T10:00:00Z')).toBe(s);
    expect(instantMicros('2025-03-01T10:00:00.000001000Z')).toBe(s + 1);
    expect(instantMicros('2025-03-01T10:00:00.000001499Z')).toBe(s + 1);
    expect(instantMicros('2025-03-01T10:00:00.999999999Z')).toBe(s + 1_000_000);
    expect(instantMicros('2025-03-01T10:00:00.000000250Z')).toBe(s);
  });
});

describe('the memory the columns take', () => {
  const at = (i: number): StatsRow => ({
    id: `conversation-${i}`, agent_id: `agt_${i % 20}`, status: CONVERSATION_STATUSES[i % 4], start_us: T0 + i * 1_000_000, duration: i % 900,
    sentiment: null, sentiment_rank: null, outcome: i % 3 ? 'resolved' : null, topics: i % 2 ? ['billing', 'refund'] : ['sales', 'z'],
    has_recording: true, has_transcript: false, cost_micros: 10_000 + i,
  });

  it('is counted from what is allocated: about BYTES_PER_ROW a conversation with two topics when sized for the account at its load', () => {
    const columns = new StatsColumns(200_000);
    for (let i = 0; i < 200_000; i++) columns.put(at(i));
    expect(columns.size).toBe(200_000);
    const perRow = columns.bytes / 200_000;
    expect(perRow).toBeGreaterThan(BYTES_PER_ROW * 0.8);
    expect(perRow).toBeLessThanOrEqual(BYTES_PER_ROW);
  });

  it('grows with new rows and with remembered searches, and says so', () => {
    const columns = new StatsColumns(10_000);
    for (let i = 0; i < 10_000; i++) columns.put(at(i));
    const loaded = columns.bytes;
    for (let i = 10_000; i < 12_000; i++) columns.put(at(i));
    expect(columns.bytes).toBeGreaterThan(loaded);
    const grown = columns.bytes;
    columns.rememberSearch('refund', columns.rowsOf(['conversation-1', 'conversation-3']));
    expect(columns.bytes).toBe(grown + 12_000);
  });

  it('counts a search’s and an agent’s day cells once made', () => {
    const columns = new StatsColumns(10_000, 0, 0);
    for (let i = 0; i < 10_000; i++) columns.put(at(i));
    columns.rememberSearch('refund', columns.rowsOf(['conversation-1', 'conversation-3']));
    columns.summarize(base);
    const before = columns.bytes;
    columns.summarize({ ...base, search: 'refund' }, columns.searchRows('refund'));
    // One day's cell (both start on it): its counts, durations and hours by status.
    expect(columns.bytes - before).toBeGreaterThan(24 * CONVERSATION_STATUSES.length * 8);
    const withSearch = columns.bytes;
    columns.summarize({ ...base, agent_id: 'agt_1' });
    expect(columns.bytes - withSearch).toBeGreaterThan(24 * CONVERSATION_STATUSES.length * 8);
  });

  it('counts the array a filter writes its rows into, and reuses it for every later answer', () => {
    const columns = new StatsColumns(10_000);
    for (let i = 0; i < 10_000; i++) columns.put(at(i));
    const loaded = columns.bytes;
    const completed = columns.summarize({ ...base, status: 'completed' }).summary;
    expect(columns.bytes).toBe(loaded + 4 * 10_000);
    const failed = columns.summarize({ ...base, status: 'failed' }).summary;
    expect(columns.bytes).toBe(loaded + 4 * 10_000);
    // Each answer read its rows before the next one wrote over them.
    expect(columns.summarize({ ...base, status: 'completed' }).summary).toEqual(completed);
    expect(completed.total + failed.total).toBeLessThanOrEqual(10_000);
  });

  it('does not grow when the same rows are put again (a catch-up behind a long transaction re-reads them all)', () => {
    const columns = new StatsColumns(10_000);
    for (let i = 0; i < 10_000; i++) columns.put(at(i));
    const loaded = columns.bytes;
    const answer = columns.summarize({ page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' }).summary;
    for (let again = 0; again < 5; again++) for (let i = 0; i < 10_000; i++) columns.put(at(i));
    expect(columns.bytes).toBe(loaded);
    expect(columns.summarize({ page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' }).summary).toEqual(answer);
    // A row given more topics than it had takes a new place; one given fewer keeps its own (at(3) loses "refund").
    columns.put({ ...at(1), topics: ['billing', 'refund', 'late'] });
    columns.put({ ...at(3), topics: ['billing'] });
    const { topics } = columns.summarize({ page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' }).summary;
    expect(topics.find((t) => t.topic === 'late')?.count).toBe(1);
    expect(topics.find((t) => t.topic === 'refund')?.count).toBe(answer.topics.find((t) => t.topic === 'refund')!.count - 1);
  });
});
