import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { StartOrder, startingWithin, withinStartCheck } from './start-order.js';

describe('every row in start-time order (StartOrder)', () => {
  it('after rows are added and moved, holds every row once, by start; a range is exactly the rows starting within it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 60 }),
        fc.array(fc.record({ row: fc.nat(), start: fc.integer({ min: 0, max: 30 }), ask: fc.boolean() }), { maxLength: 40 }),
        fc.integer({ min: -1, max: 31 }),
        fc.integer({ min: -1, max: 31 }),
        (initial, puts, from, to) => {
          const start = new Float64Array(initial.length + puts.length);
          initial.forEach((s, row) => (start[row] = s));
          let rows = initial.length;
          const order = new StartOrder();
          order.rows(start, rows);
          for (const put of puts) {
            // Some puts are new rows, the others give an existing row a start (the same, or a new one).
            const row = put.row % (rows + 1);
            const moved = row === rows || start[row] !== put.start;
            if (row === rows) rows++;
            start[row] = put.start;
            order.update(row, moved);
            if (put.ask) order.rows(start, rows);
          }
          const ordered = order.rows(start, rows);
          expect([...ordered].sort((a, b) => a - b)).toEqual([...Array(rows).keys()]);
          expect([...ordered].map((row) => start[row])).toEqual([...start.subarray(0, rows)].sort((a, b) => a - b));
          expect(order.bytes).toBe(4 * rows);
          const within = [...startingWithin(ordered, start, from, to)].sort((a, b) => a - b);
          expect(within).toEqual([...Array(rows).keys()].filter((row) => start[row] >= from && start[row] <= to));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('takes the start-time check out of the checks it narrows by, and keeps the others', () => {
    const start = Float64Array.from([5, 1, 3, 9]);
    const status = Uint8Array.from([0, 1, 0, 0]);
    const ordered = Int32Array.from([1, 2, 0, 3]);
    const checks = { values: [status, start], min: [0, 2], max: [0, 6], includes: [] };
    const narrowed = withinStartCheck(ordered, start, checks);
    expect([...narrowed.rows]).toEqual([2, 0]);
    expect(narrowed.checks).toEqual({ values: [status], min: [0], max: [0], includes: [] });
    expect(withinStartCheck(ordered, start, { values: [status], min: [1], max: [1], includes: [] }).rows).toBe(ordered);
  });
});
