import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { RowsByCode } from './rows-by-code.js';

describe('RowsByCode', () => {
  it('gives each code’s rows in row order, as rows are added and codes change', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 60 }),
        fc.array(fc.oneof(
          fc.record({ add: fc.integer({ min: 0, max: 6 }) }),
          fc.record({ change: fc.nat(), to: fc.integer({ min: 0, max: 6 }) }),
          fc.record({ ask: fc.integer({ min: 0, max: 7 }) }),
        ), { maxLength: 40 }),
        (initial, steps) => {
          const values = Int32Array.from([...initial, ...new Array<number>(steps.length).fill(0)]);
          let rows = initial.length;
          const index = new RowsByCode();
          const plain = (code: number) => [...values.subarray(0, rows).entries()].filter(([, v]) => v === code).map(([row]) => row);
          for (const step of steps) {
            if ('add' in step) {
              values[rows] = step.add;
              index.added(rows++, step.add);
            } else if ('change' in step) {
              if (rows === 0) continue;
              const row = step.change % rows;
              if (values[row] !== step.to) index.changed();
              values[row] = step.to;
            } else {
              expect([...index.rowsOf(step.ask, values, rows)]).toEqual(plain(step.ask));
            }
          }
          for (let code = 0; code <= 7; code++) expect([...index.rowsOf(code, values, rows)]).toEqual(plain(code));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('counts the lists it holds', () => {
    const index = new RowsByCode();
    expect(index.bytes).toBe(0);
    index.rowsOf(0, Int32Array.from([0, 1, 0, 1, 1]), 5);
    expect(index.bytes).toBe(5 * 4);
  });
});
