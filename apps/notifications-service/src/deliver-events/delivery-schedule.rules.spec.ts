import { describe, expect, it } from '@jest/globals';
import { afterAttempt, DEFAULT_RETRY_SCHEDULE_MS, disableReason, isSuccess, parseRetryAfter, parseRetrySchedule, storedBody } from './delivery-schedule.rules.js';

describe('the retry schedule', () => {
  const middle = 0.5; // no jitter

  it('a 2xx is success; 3xx, 4xx, 5xx and errors are not', () => {
    expect(isSuccess({ statusCode: 200 })).toBe(true);
    expect(isSuccess({ statusCode: 299 })).toBe(true);
    for (const statusCode of [301, 304, 400, 500]) expect(isSuccess({ statusCode })).toBe(false);
    expect(isSuccess({ error: 'timeout' })).toBe(false);
    expect(afterAttempt(1, { statusCode: 204 }, DEFAULT_RETRY_SCHEDULE_MS, middle)).toEqual({ status: 'succeeded' });
  });

  it('waits the schedule’s next step after each failed attempt, and fails after the last', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => afterAttempt(n, { statusCode: 500 }, DEFAULT_RETRY_SCHEDULE_MS, middle));
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000].map((delayMs) => ({ status: 'pending', delayMs })));
    expect(afterAttempt(8, { statusCode: 500 }, DEFAULT_RETRY_SCHEDULE_MS, middle)).toEqual({ status: 'failed' });
  });

  it('jitters each wait by at most 10 %', () => {
    expect(afterAttempt(1, { error: 'timeout' }, [0, 10_000], 0)).toEqual({ status: 'pending', delayMs: 9_000 });
    expect(afterAttempt(1, { error: 'timeout' }, [0, 10_000], 0.999999)).toEqual({ status: 'pending', delayMs: 11_000 });
  });

  it('honours a longer Retry-After on 429 and 503 only', () => {
    expect(afterAttempt(1, { statusCode: 429, retryAfterMs: 60_000 }, [0, 1_000], middle)).toEqual({ status: 'pending', delayMs: 60_000 });
    expect(afterAttempt(1, { statusCode: 503, retryAfterMs: 60_000 }, [0, 1_000], middle)).toEqual({ status: 'pending', delayMs: 60_000 });
    expect(afterAttempt(1, { statusCode: 500, retryAfterMs: 60_000 }, [0, 1_000], middle)).toEqual({ status: 'pending', delayMs: 1_000 });
    expect(afterAttempt(1, { statusCode: 429, retryAfterMs: 10 }, [0, 1_000], middle)).toEqual({ status: 'pending', delayMs: 1_000 });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads WEBHOOK_RETRY_SCHEDULE_MS', () => {
    expect(parseRetrySchedule('0, 1000,2000')).toEqual([0, 1_000, 2_000]);
    expect(parseRetrySchedule('0,-1')).toEqual(expect.stringContaining('comma-separated'));
    expect(parseRetrySchedule('')).toEqual(expect.stringContaining('comma-separated'));
  });

  it('keeps the first 1 KiB of a body, never half a character', () => {
    expect(storedBody('ok')).toBe('ok');
    expect(Buffer.byteLength(storedBody('x'.repeat(5000)))).toBe(1024);
    expect(storedBody('é'.repeat(1000)).length).toBe(512);
  });
});

describe('disabling an endpoint that keeps failing', () => {
  const now = new Date('2026-01-10T00:00:00Z');
  it('after the threshold of failed deliveries in a row', () => {
    expect(disableReason({ failedInARow: 999, failingSince: now }, now, 1_000)).toBeUndefined();
    expect(disableReason({ failedInARow: 1_000, failingSince: now }, now, 1_000)).toBe('1000 deliveries failed in a row');
  });

  it('after 5 days of nothing but failures, however few', () => {
    expect(disableReason({ failedInARow: 2, failingSince: new Date('2026-01-05T00:00:01Z') }, now, 1_000)).toBeUndefined();
    expect(disableReason({ failedInARow: 2, failingSince: new Date('2026-01-05T00:00:00Z') }, now, 1_000)).toBe('every delivery failed for 5 days');
  });
});
