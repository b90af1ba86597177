import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RememberedSearches } from './remembered-searches.js';

describe('a remembered search’s matches in start-time and in row order (RememberedSearches)', () => {
  it('after rows are put again (moved, matching or no longer), holds exactly the matching rows, by start', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ start: fc.integer({ min: 0, max: 30 }), text: fc.constantFrom('a refund', 'hello', 'refund') }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.record({ row: fc.nat(), start: fc.integer({ min: 0, max: 30 }), text: fc.constantFrom('refund', 'nope') }), { maxLength: 40 }),
        fc.array(fc.nat({ max: 3 }), { maxLength: 40 }),
        (initial, puts, asks) => {
          const start = new Float64Array(initial.length + puts.length);
          const text: string[] = [];
          initial.forEach((r, row) => [start[row], text[row]] = [r.start, r.text]);
          let rows = initial.length;
          const searches = new RememberedSearches(4);
          searches.remember('refund', Int32Array.from(text.flatMap((t, row) => (t.includes('refund') ? [row] : []))), rows);
          searches.byStart('refund', start, rows);
          puts.forEach((put, i) => {
            // Some puts are new rows, the others change an existing one.
            const row = put.row % (rows + 1);
            const moved = row === rows || start[row] !== put.start;
            if (row === rows) rows++;
            [start[row], text[row]] = [put.start, put.text];
            searches.update(row, rows, put.text, moved);
            // Asked for in between some puts: what changed since is merged in.
            if ((asks[i] ?? 1) === 0) searches.byStart('refund', start, rows);
            if ((asks[i] ?? 0) === 1) searches.byRow('refund', rows);
          });
          const ordered = [...searches.byStart('refund', start, rows)!];
          const matching = text.flatMap((t, row) => (t.includes('refund') ? [row] : []));
          expect([...ordered].sort((a, b) => a - b)).toEqual(matching);
          expect(ordered.map((row) => start[row])).toEqual(matching.map((row) => start[row]).sort((a, b) => a - b));
          expect([...searches.byRow('refund', rows)!]).toEqual(matching);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('forgets every search when a row is put without its search text, and the least recently used beyond its room', () => {
    const start = Float64Array.from([1, 2]);
    const searches = new RememberedSearches(2);
    for (const term of ['a', 'b', 'c']) searches.remember(term, Int32Array.from([0]), 2);
    expect([searches.has('a'), searches.has('b'), searches.has('c')]).toEqual([false, true, true]);
    expect([...searches.byStart('b', start, 2)!]).toEqual([0]);
    searches.update(1, 2, undefined, false);
    expect(searches.size).toBe(0);
  });
});
