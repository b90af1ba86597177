import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { durationOrder, pageKeysOf } from './page-keys.js';

interface Generated {
  start: number;
  duration: number;
}

/** The list's order as PostgreSQL sorts it: the sort key, then start_time, then id, all in one direction. */
function sqlOrder(rows: Generated[], ids: string[], sortBy: 'start_time' | 'duration', descending: boolean) {
  const dir = descending ? -1 : 1;
  return (a: number, b: number) =>
    dir * ((sortBy === 'duration' ? rows[a].duration - rows[b].duration : 0) || rows[a].start - rows[b].start || (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
}

describe('a page named by its rows’ sort keys (pageKeysOf, from rows in the list’s order)', () => {
  it('is the page the list’s order gives: the rows at those keys, in that order, less the first key’s rows before the page', () => {
    fc.assert(
      fc.property(
        // Few distinct starts and durations: many rows share a key, which the columns cannot order (ids are PostgreSQL's).
        fc.array(fc.record({ start: fc.integer({ min: 0, max: 12 }), duration: fc.integer({ min: 0, max: 4 }) }), { maxLength: 60 }),
        fc.constantFrom('start_time' as const, 'duration' as const),
        fc.boolean(),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer(),
        // The longest duration given: at or above the real one, as the columns keep it.
        fc.integer({ min: 0, max: 3 }),
        (rows, sortBy, descending, offset, limit, seed, aboveLongest) => {
          // Ids unrelated to the rows' places; ties of start in the columns' order are in row order, not id order.
          const ids = rows.map((_, i) => `c${((i * 7919 + seed) >>> 0) % 100_003}-${i}`);
          const start = Float64Array.from(rows, (r) => 1_700_000_000_000_000 + r.start);
          const duration = Int32Array.from(rows, (r) => r.duration);
          const byStart = Int32Array.from(rows.keys()).sort((a, b) => start[a] - start[b]);
          const order = sqlOrder(rows, ids, sortBy, descending);
          const expected = [...rows.keys()].sort(order).slice(offset, offset + limit);

          const ordered = sortBy === 'start_time' ? byStart : durationOrder(byStart, duration, Math.max(0, ...duration) + aboveLongest);
          const page = pageKeysOf({ ordered, start, duration }, sortBy, descending, offset, limit);
          expect(page.total).toBe(rows.length);
          // What the SQL of page-by-keys.ts selects: every row at one of the keys (in start-time order, only its start counts).
          const atKeys = [...rows.keys()].filter((i) => page.keys.some((k) => k.start_us === start[i] && (sortBy === 'start_time' || k.duration === duration[i])));
          const read = atKeys.sort(order).slice(page.skip, page.skip + Math.min(limit, Math.max(0, rows.length - offset)));
          expect(read.map((i) => ids[i])).toEqual(expected.map((i) => ids[i]));
          // Each key once, and no more keys than rows on the page.
          expect(new Set(page.keys.map((k) => (sortBy === 'duration' ? `${k.duration}:${k.start_us}` : k.start_us))).size).toBe(page.keys.length);
          expect(page.keys.length).toBeLessThanOrEqual(expected.length);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('past the last row: the total and no keys', () => {
    const page = pageKeysOf({ ordered: Int32Array.from([1, 0]), start: Float64Array.from([5, 3]), duration: Int32Array.from([1, 1]) }, 'duration', true, 2, 25);
    expect(page).toEqual({ total: 2, keys: [], skip: 0 });
  });

  it('in duration order, the rows by duration and, within one, in the start-time order they were given', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ start: fc.integer({ min: 0, max: 20 }), duration: fc.integer({ min: 0, max: 6 }) }), { maxLength: 50 }), (rows) => {
        const start = Float64Array.from(rows, (r) => r.start);
        const duration = Int32Array.from(rows, (r) => r.duration);
        const byStart = Int32Array.from(rows.keys()).sort((a, b) => start[a] - start[b]);
        const expected = [...byStart].sort((a, b) => duration[a] - duration[b]);
        expect([...durationOrder(byStart, duration, 6)]).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
