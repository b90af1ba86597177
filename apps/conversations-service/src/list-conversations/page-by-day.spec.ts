import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseListQuery } from './list-conversations.params.js';
import { dayFacetOf, locateInDays, type DayCount } from './page-by-day.js';

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

describe('locateInDays', () => {
  const days: DayCount[] = [
    { day: '2024-06-02', conversations: 3 },
    { day: '2024-06-01', conversations: 2 },
    { day: '2024-06-04', conversations: 1 },
  ];

  it('counts from the newest day for a descending list and from the oldest for an ascending one', () => {
    // Newest first: 06-04 (offset 0), 06-02 (1–3), 06-01 (4–5).
    expect(locateInDays(days, 6, 0, true)).toEqual({ day: '2024-06-04', skip: 0 });
    expect(locateInDays(days, 6, 3, true)).toEqual({ day: '2024-06-02', skip: 2 });
    expect(locateInDays(days, 6, 5, true)).toEqual({ day: '2024-06-01', skip: 1 });
    // Oldest first: 06-01 (0–1), 06-02 (2–4), 06-04 (5).
    expect(locateInDays(days, 6, 1, false)).toEqual({ day: '2024-06-01', skip: 1 });
    expect(locateInDays(days, 6, 2, false)).toEqual({ day: '2024-06-02', skip: 0 });
    expect(locateInDays(days, 6, 5, false)).toEqual({ day: '2024-06-04', skip: 0 });
  });

  it('answers nothing past the end, or when the counts do not add up to the total', () => {
    expect(locateInDays(days, 6, 6, true)).toBeUndefined();
    expect(locateInDays(days, 7, 2, true)).toBeUndefined();
    expect(locateInDays([...days, { day: '2024-06-05', conversations: -1 }], 5, 2, true)).toBeUndefined();
    expect(locateInDays([], 0, 0, true)).toBeUndefined();
  });

  it('finds the same row as skipping one by one through the days in order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ day: fc.integer({ min: 0, max: 400 }), conversations: fc.integer({ min: 0, max: 30 }) }), { selector: (d) => d.day, minLength: 1 }),
        fc.boolean(),
        fc.nat(),
        (raw, descending, seed) => {
          const counts = raw.map(({ day, conversations }) => ({ day: new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10), conversations }));
          // Every match as the day it started on, in the list's order.
          const matches = [...counts].sort((a, b) => a.day.localeCompare(b.day)).flatMap((d) => Array.from({ length: d.conversations }, () => d.day));
          if (descending) matches.reverse();
          if (matches.length === 0) return;
          const offset = seed % matches.length;
          const position = locateInDays(counts, matches.length, offset, descending)!;
          expect(position.day).toBe(matches[offset]);
          expect(matches.indexOf(position.day) + position.skip).toBe(offset);
        },
      ),
    );
  });
});
