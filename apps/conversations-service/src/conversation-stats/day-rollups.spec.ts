import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DAY_US, DayRollups, type Cell, type RolledRow } from './day-rollups.js';

/** The cells a DayRollups holds (private: read here only to add up what they take the long way). */
function cellsOf(rollups: DayRollups): Cell[] {
  const held = rollups as unknown as { byDayStatus: Map<number, Cell>; byDayTopic: Map<number, Cell>; byDayAgent: Map<number, Cell> };
  return [...held.byDayStatus.values(), ...held.byDayTopic.values(), ...held.byDayAgent.values()];
}

const rolled = fc.record({
  agent: fc.integer({ min: 0, max: 2 }),
  status: fc.integer({ min: 0, max: 5 }),
  sentiment: fc.integer({ min: 0, max: 3 }),
  outcome: fc.integer({ min: -1, max: 6 }),
  topics: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
  // Past 4,096 s a duration is counted in a map, which grows and shrinks.
  duration: fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 4_000, max: 9_000 })),
  cost: fc.constantFrom(Number.NaN, 1_000),
  start: fc.integer({ min: 0, max: 5 * 24 }).map((hour) => 20_000 * DAY_US + hour * 3_600_000_000),
}) satisfies fc.Arbitrary<RolledRow>;

describe('DayRollups', () => {
  it('counts the memory its cells take as they are added to and taken from (not added up at each answer)', () => {
    fc.assert(
      fc.property(fc.array(rolled, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 40 }), (rows, removals) => {
        const rollups = new DayRollups(4);
        // One agent's cells kept from the start (its rows so far: none), another's adopted halfway.
        rollups.adopt(0, [], (i) => rows[i]);
        rows.forEach((r, i) => {
          if (i === rows.length >> 1) rollups.adopt(1, rows.flatMap((x, j) => (j < i && x.agent === 1 ? [j] : [])), (j) => rows[j]);
          rollups.apply(r, 1);
        });
        const kept = [...rows];
        for (const at of removals) {
          if (kept.length === 0) break;
          const [r] = kept.splice(at % kept.length, 1);
          rollups.apply(r, -1);
        }
        const days = new Set(rows.map((r) => Math.floor(r.start / DAY_US))).size;
        const cells = cellsOf(rollups);
        expect(rollups.bytes).toBe(days * 16 + cells.reduce((sum, cell) => sum + cell.bytes + 64, 0));
      }),
      { numRuns: 500 },
    );
  });
});
