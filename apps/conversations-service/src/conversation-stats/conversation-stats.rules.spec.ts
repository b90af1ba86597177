import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DURATION_HISTOGRAM_BOUNDS, MAX_TIMELINE_POINTS } from '@voice/contracts';
import { parseStatsQuery } from './conversation-stats.params.js';
import {
  durationBucket, durationFigures, fillHistogram, fillTimeline, histogramOf, instantMs, rollUpHours, slotOf, timelineBucket, timelineMustFit,
} from './conversation-stats.rules.js';

const ms = (iso: string) => Date.parse(iso);
const H = 3_600_000;

describe('timelineBucket', () => {
  it('keeps the bucket asked for, whatever the range', () => {
    expect(timelineBucket('day', ms('2025-01-01T00:00:00Z'), ms('2025-01-01T05:00:00Z'))).toBe('day');
    expect(timelineBucket('hour', ms('2025-01-01T00:00:00Z'), ms('2025-02-01T00:00:00Z'))).toBe('hour');
  });
  it('chooses hour up to and including two days, day beyond', () => {
    const from = ms('2025-01-01T00:00:00Z');
    expect(timelineBucket(undefined, from, from)).toBe('hour');
    expect(timelineBucket(undefined, from, from + 48 * H)).toBe('hour');
    expect(timelineBucket(undefined, from, from + 48 * H + 1)).toBe('day');
    // start_date=2025-01-01&end_date=2025-01-02: end_date is the last microsecond of the 2nd, under 48 h.
    expect(timelineBucket(undefined, instantMs('2025-01-01T00:00:00.000000000Z'), instantMs('2025-01-02T23:59:59.999999000Z'))).toBe('hour');
  });
});

describe('timelineMustFit', () => {
  it('covers the first to the last UTC bucket touched by the range', () => {
    expect(timelineMustFit('hour', ms('2025-01-01T10:59:59Z'), ms('2025-01-01T11:00:00Z'))).toEqual({
      first: slotOf('hour', ms('2025-01-01T10:00:00Z')), last: slotOf('hour', ms('2025-01-01T11:00:00Z')),
    });
    const day = timelineMustFit('day', ms('2025-01-01T23:00:00Z'), ms('2025-01-03T00:00:00Z'));
    expect('first' in day && day.last - day.first + 1).toBe(3);
  });
  it(`accepts ${MAX_TIMELINE_POINTS} points and refuses one more, on bucket`, () => {
    const from = ms('2025-01-01T00:00:00Z');
    expect(timelineMustFit('hour', from, from + (MAX_TIMELINE_POINTS - 1) * H)).not.toHaveProperty('problem');
    expect(timelineMustFit('hour', from, from + MAX_TIMELINE_POINTS * H)).toEqual({
      problem: expect.objectContaining({ code: 'invalid_parameter', field: 'bucket' }),
    });
    expect(timelineMustFit('day', ms('0001-01-01T00:00:00Z'), ms('9999-12-31T23:59:59Z'))).toHaveProperty('problem.field', 'bucket');
  });
  it('numbers buckets before 1970 the same way (floor, not truncation)', () => {
    expect(slotOf('day', ms('1969-12-31T23:59:59Z'))).toBe(-1);
    expect(slotOf('hour', ms('1970-01-01T00:00:00Z'))).toBe(0);
  });
});

describe('fillTimeline', () => {
  it('gives every bucket from first to last a point, zeros where nothing started, UTC starts, oldest first', () => {
    const first = slotOf('hour', ms('2025-03-01T22:00:00Z'));
    const points = fillTimeline('hour', first, first + 3, [
      { slot: first, in_progress: 1, completed: 2, failed: 0, abandoned: 0 },
      { slot: first + 3, in_progress: 0, completed: 0, failed: 4, abandoned: 5 },
    ]);
    expect(points).toEqual([
      { start: '2025-03-01T22:00:00.000Z', in_progress: 1, completed: 2, failed: 0, abandoned: 0 },
      { start: '2025-03-01T23:00:00.000Z', in_progress: 0, completed: 0, failed: 0, abandoned: 0 },
      { start: '2025-03-02T00:00:00.000Z', in_progress: 0, completed: 0, failed: 0, abandoned: 0 },
      { start: '2025-03-02T01:00:00.000Z', in_progress: 0, completed: 0, failed: 4, abandoned: 5 },
    ]);
  });
  it('day points start at UTC midnight; a single-bucket range is one point', () => {
    const slot = slotOf('day', ms('2025-03-01T15:00:00Z'));
    expect(fillTimeline('day', slot, slot, [])).toEqual([{ start: '2025-03-01T00:00:00.000Z', in_progress: 0, completed: 0, failed: 0, abandoned: 0 }]);
  });
});

describe('duration histogram', () => {
  it('has the documented fixed buckets, min inclusive and max exclusive, the last unbounded', () => {
    expect(DURATION_HISTOGRAM_BOUNDS.map((b) => [b.min, b.max])).toEqual([[0, 30], [30, 60], [60, 120], [120, 300], [300, 600], [600, 1800], [1800, null]]);
    const cases: Array<[number, number]> = [[0, 0], [29, 0], [30, 1], [59, 1], [60, 2], [119, 2], [120, 3], [299, 3], [300, 4], [599, 4], [600, 5], [1799, 5], [1800, 6], [86_400, 6]];
    for (const [duration, bucket] of cases) expect([duration, durationBucket(duration)]).toEqual([duration, bucket]);
  });
  it('fills every bucket from counts by bucket index (durationBucket\'s numbering), zeros included', () => {
    expect(fillHistogram(new Map([[0, 3], [6, 1]]))).toEqual([
      { min: 0, max: 30, count: 3 }, { min: 30, max: 60, count: 0 }, { min: 60, max: 120, count: 0 }, { min: 120, max: 300, count: 0 },
      { min: 300, max: 600, count: 0 }, { min: 600, max: 1800, count: 0 }, { min: 1800, max: null, count: 1 },
    ]);
  });
});

describe('parseStatsQuery', () => {
  it('takes every list filter and bucket', () => {
    const parsed = parseStatsQuery({ status: 'completed', agent_id: 'agt_1', start_date: '2025-01-01', bucket: 'day', topic: 'Billing' });
    expect(parsed).toMatchObject({ ok: true, value: { bucket: 'day', filter: { status: 'completed', agent_id: 'agt_1', topic: 'billing', start_date: '2025-01-01T00:00:00.000000000Z' } } });
  });
  it.each(['page', 'per_page', 'sort_by', 'sort_order', 'stauts'])('refuses %s as an unknown parameter', (name) => {
    expect(parseStatsQuery({ [name]: '1' })).toEqual({ ok: false, problem: expect.objectContaining({ code: 'invalid_parameter', field: name }) });
  });
  it('refuses a bucket other than hour or day, or given twice, with its valid values', () => {
    for (const bucket of ['week', 'HOUR', ['hour', 'day']]) {
      expect(parseStatsQuery({ bucket })).toEqual({ ok: false, problem: expect.objectContaining({ field: 'bucket', valid_values: ['hour', 'day'] }) });
    }
  });
  it('refuses a bad filter as the list does', () => {
    expect(parseStatsQuery({ start_date: 'yesterday' })).toMatchObject({ ok: false, problem: { code: 'invalid_date_format', field: 'start_date' } });
  });
});

/** Linear interpolation between the closest ranks of the sorted values (PostgreSQL's percentile_cont), computed plainly. */
function percentileOfSorted(sorted: number[], q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  return sorted[lower] + (sorted[Math.ceil(position)] - sorted[lower]) * (position - lower);
}
const countsOf = (durations: number[]) => [...new Set(durations)].map((d) => ({ duration: d, count: durations.filter((x) => x === d).length }));
const round2 = (x: number) => Math.round(x * 100) / 100;

describe('durationFigures (from counts per duration)', () => {
  it('equals the average and percentiles of the durations themselves', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7_200 }), { minLength: 1, maxLength: 300 }), (durations) => {
        const sorted = [...durations].sort((a, b) => a - b);
        expect(durationFigures(countsOf(durations))).toEqual({
          avg: round2(durations.reduce((a, b) => a + b, 0) / durations.length),
          p50: round2(percentileOfSorted(sorted, 0.5)),
          p90: round2(percentileOfSorted(sorted, 0.9)),
        });
      }),
    );
  });
  it('interpolates between ranks, in any order of the counts; nothing counted → nulls', () => {
    expect(durationFigures([{ duration: 10, count: 1 }, { duration: 0, count: 1 }])).toEqual({ avg: 5, p50: 5, p90: 9 });
    expect(durationFigures([{ duration: 7, count: 4 }])).toEqual({ avg: 7, p50: 7, p90: 7 });
    expect(durationFigures([])).toEqual({ avg: null, p50: null, p90: null });
    expect(durationFigures([{ duration: 3, count: 0 }])).toEqual({ avg: null, p50: null, p90: null });
  });
});

describe('histogramOf (from counts per duration)', () => {
  it('puts each duration\'s count in its bucket', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 200 }), (durations) => {
        const expected = new Map<number, number>();
        for (const d of durations) expected.set(durationBucket(d), (expected.get(durationBucket(d)) ?? 0) + 1);
        expect(histogramOf(countsOf(durations))).toEqual(expected);
      }),
    );
  });
});

describe('rollUpHours', () => {
  const hour = (iso: string) => slotOf('hour', ms(iso));
  const counts = (completed: number, failed = 0) => ({ in_progress: 0, completed, failed, abandoned: 0 });
  it('keeps hours as they are and sums them into whole UTC days', () => {
    const hours = [
      { slot: hour('2025-03-01T00:00:00Z'), ...counts(1) },
      { slot: hour('2025-03-01T23:00:00Z'), ...counts(2, 1) },
      { slot: hour('2025-03-02T00:00:00Z'), ...counts(4) },
    ];
    expect(rollUpHours('hour', hours)).toEqual(hours);
    expect(rollUpHours('day', hours)).toEqual([
      { slot: slotOf('day', ms('2025-03-01T12:00:00Z')), ...counts(3, 1) },
      { slot: slotOf('day', ms('2025-03-02T12:00:00Z')), ...counts(4) },
    ]);
  });
});
