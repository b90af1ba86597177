import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseListQuery } from './list-conversations.params.js';
import { dayFacetOf, locateInPeriods, type PeriodCount } from './page-by-day.js';

function filter(query: Record<string, string>) {
  const parsed = parseListQuery(query);
  if (!parsed.ok) throw new Error(parsed.problem.message);
  return parsed.filter;
}

describe('dayFacetOf', () => {
  it.each([
    [{}, 'day'],
    [{ start_date: '2024-06-01', end_date: '2024-06-30' }, 'day'],
    [{ status: 'failed' }, 'day:status:failed'],
    [{ status: 'completed', start_date: '2024-06-01' }, 'day:status:completed'],
    [{ has_recording: 'true' }, 'day:has_recording:true'],
    [{ has_recording: 'false', end_date: '2024-06-01' }, 'day:has_recording:false'],
    [{ sentiment: 'negative' }, undefined],
    [{ status: 'failed', has_recording: 'true' }, undefined],
    [{ agent_id: 'agent_1', status: 'failed' }, undefined],
    [{ search: 'refund' }, undefined],
    [{ topic: 'Billing' }, 'day:topic:billing'],
    [{ topic: 'billing', start_date: '2024-06-01' }, 'day:topic:billing'],
    [{ topic: 'billing', status: 'completed' }, 'day:status:completed:topic:billing'],
    [{ topic: 'billing', status: 'completed', end_date: '2024-06-01' }, 'day:status:completed:topic:billing'],
    [{ topic: 'billing', agent_id: 'agent_1' }, undefined],
    [{ topic: 'billing', status: 'completed', has_recording: 'true' }, undefined],
    [{ topic: 'billing', search: 'refund' }, undefined],
  ] as Array<[Record<string, string>, string | undefined]>)('%j → %s', (query, facet) => {
    expect(dayFacetOf(filter(query))).toBe(facet);
  });
});

describe('locateInPeriods', () => {
  const days: PeriodCount[] = [
    { period: '2024-06-02', conversations: 3 },
    { period: '2024-06-01', conversations: 2 },
    { period: '2024-06-04', conversations: 1 },
  ];

  it('counts from the newest period for a descending list and from the oldest for an ascending one', () => {
    // Newest first: 06-04 (offset 0), 06-02 (1–3), 06-01 (4–5).
    expect(locateInPeriods(days, 6, 0, true)).toEqual({ period: '2024-06-04', skip: 0 });
    expect(locateInPeriods(days, 6, 3, true)).toEqual({ period: '2024-06-02', skip: 2 });
    expect(locateInPeriods(days, 6, 5, true)).toEqual({ period: '2024-06-01', skip: 1 });
    // Oldest first: 06-01 (0–1), 06-02 (2–4), 06-04 (5).
    expect(locateInPeriods(days, 6, 1, false)).toEqual({ period: '2024-06-01', skip: 1 });
    expect(locateInPeriods(days, 6, 2, false)).toEqual({ period: '2024-06-02', skip: 0 });
    expect(locateInPeriods(days, 6, 5, false)).toEqual({ period: '2024-06-04', skip: 0 });
  });

  it('answers nothing past the end, or when the counts do not add up to the total', () => {
    expect(locateInPeriods(days, 6, 6, true)).toBeUndefined();
    expect(locateInPeriods(days, 7, 2, true)).toBeUndefined();
    expect(locateInPeriods([...days, { period: '2024-06-05', conversations: -1 }], 5, 2, true)).toBeUndefined();
    expect(locateInPeriods([], 0, 0, true)).toBeUndefined();
  });

  it('finds the same row as skipping one by one through the periods in order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ hour: fc.integer({ min: 0, max: 400 }), conversations: fc.integer({ min: 0, max: 30 }) }), { selector: (d) => d.hour, minLength: 1 }),
        fc.boolean(),
        fc.nat(),
        (raw, descending, seed) => {
          // Hours (`YYYY-MM-DD HH`) across days: string order is time order.
          const counts = raw.map(({ hour, conversations }) => ({ period: new Date(Date.UTC(2024, 0, 1, hour)).toISOString().slice(0, 13).replace('T', ' '), conversations }));
          // Every match as the hour it started in, in the list's order.
          const matches = [...counts].sort((a, b) => a.period.localeCompare(b.period)).flatMap((d) => Array.from({ length: d.conversations }, () => d.period));
          if (descending) matches.reverse();
          if (matches.length === 0) return;
          const offset = seed % matches.length;
          const position = locateInPeriods(counts, matches.length, offset, descending)!;
          expect(position.period).toBe(matches[offset]);
          expect(matches.indexOf(position.period) + position.skip).toBe(offset);
        },
      ),
    );
  });
});
