import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CONVERSATION_STATUSES } from '@voice/contracts';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import { StatsColumns, type StatsRow } from './stats-columns.js';

const T0 = Date.parse('2025-03-01T00:00:00Z') * 1000;
const TERM = 'refund';

const row = fc.record({
  id: fc.integer({ min: 0, max: 30 }).map((n) => `c${n}`),
  agent_id: fc.constantFrom('agt_a', 'agt_b'),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  // Few starts and durations: many rows share a sort key.
  start_us: fc.integer({ min: 0, max: 8 }).map((s) => T0 + s * 1_000_000),
  duration: fc.integer({ min: 0, max: 5 }),
  topics: fc.uniqueArray(fc.constantFrom('billing', 'sales'), { maxLength: 2 }),
  text: fc.constantFrom('refund issued', 'booked', 'no refund', ''),
}).map(({ text, ...r }): [StatsRow, string] => [{
  ...r, sentiment: null, sentiment_rank: null, outcome: null, has_recording: false, has_transcript: false, cost_micros: null,
}, text]);

const list = fc.record({
  filters: fc.record({
    status: fc.constantFrom(...CONVERSATION_STATUSES),
    agent_id: fc.constantFrom('agt_a', 'agt_b'),
    min_duration: fc.integer({ min: 0, max: 5 }),
    topic: fc.constantFrom('billing', 'sales'),
  }, { requiredKeys: [] }),
  sortBy: fc.constantFrom('start_time' as const, 'duration' as const),
  descending: fc.boolean(),
  offset: fc.integer({ min: 0, max: 25 }),
  limit: fc.integer({ min: 1, max: 6 }),
});

type Listed = typeof list extends fc.Arbitrary<infer T> ? T : never;

describe('a search with other filters, paged from its view in the list’s orders (filtered views)', () => {
  it('gives the total and the page’s keys of the plain list, asked between puts that change rows, text and filters’ fields', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.array(fc.tuple(row, fc.option(fc.nat(), { nil: undefined })), { maxLength: 50 }), fc.array(list, { minLength: 1, maxLength: 3 }),
        (before, steps, lists) => {
          const columns = new StatsColumns();
          const latest = new Map<string, [StatsRow, string]>();
          for (const [r, t] of before) {
            columns.put(r);
            latest.set(r.id, [r, t]);
          }
          const matching = [...latest.values()].filter(([, t]) => t.includes(TERM)).map(([r]) => r.id);
          columns.rememberSearch(TERM, columns.rowsOf(matching));
          const check = (l: Listed) => {
            const f = { page: 1, per_page: l.limit, sort_by: l.sortBy, sort_order: l.descending ? 'desc' : 'asc', ...l.filters, search: TERM } as ConversationListFilter & { search: string };
            const passes = (r: StatsRow, t: string) => t.includes(TERM) && (f.status === undefined || r.status === f.status)
              && (f.agent_id === undefined || r.agent_id === f.agent_id) && (f.min_duration === undefined || r.duration >= f.min_duration)
              && (f.topic === undefined || r.topics.includes(f.topic));
            const key = (r: StatsRow) => (l.sortBy === 'duration' ? [r.duration, r.start_us] : [r.start_us, 0]);
            const order = (a: StatsRow, b: StatsRow) => (l.descending ? -1 : 1) * (key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
            const listed = [...latest.values()].filter(([r, t]) => passes(r, t)).map(([r]) => r).sort(order);
            const page = listed.slice(l.offset, l.offset + l.limit);
            const keys = page.map((r) => ({ start_us: r.start_us, duration: r.duration }))
              .filter((k, i, all) => i === 0 || all[i - 1].start_us !== k.start_us || (l.sortBy === 'duration' && all[i - 1].duration !== k.duration));
            const got = columns.pageKeys(f, l.sortBy, l.offset, l.limit)!;
            expect(got.total).toBe(listed.length);
            if (page.length === 0) return expect(got.keys).toEqual([]);
            // Start-time order names a page by starts alone: the duration of its key is any of that start's rows'.
            expect(got.keys.map((k) => (l.sortBy === 'duration' ? k : k.start_us))).toEqual(keys.map((k) => (l.sortBy === 'duration' ? k : k.start_us)));
            expect(got.skip).toBe(l.offset - listed.findIndex((r) => order(r, page[0]) === 0));
          };
          for (const l of lists) check(l);
          // The same lists asked again between puts: their views are mended with what changed.
          for (const [[r, t], ask] of steps) {
            columns.put(r, t);
            latest.set(r.id, [r, t]);
            if (ask !== undefined) check(lists[ask % lists.length]);
          }
          for (const l of lists) check(l);
        }),
      { numRuns: 500 },
    );
  });
});
