import { describe, expect, it } from '@jest/globals';
import { apiQuery, filtersFromSearch, searchFromFilters, withFilter } from './conversation-filters';
import { agentFigures, bucketFor, liveCalls, recentDays, shares } from './overview';
import { formFieldOf, inControlWords, missingScopeOf, problemOf } from './problems';

describe('conversation filters in the address', () => {
  it('round-trips every filter, in a stable order, leaving defaults out', () => {
    const search = '?status=completed&search=refund&sort_by=start_time&sort_order=asc&page=1&min_duration=30&has_recording=true&unknown=x';
    const filters = filtersFromSearch(search);
    expect(filters).toEqual({ status: 'completed', search: 'refund', sort_order: 'asc', min_duration: '30', has_recording: 'true' });
    expect(searchFromFilters(filters)).toBe('?status=completed&min_duration=30&has_recording=true&search=refund&sort_order=asc');
    expect(filtersFromSearch(searchFromFilters(filters))).toEqual(filters);
    expect(searchFromFilters({})).toBe('');
  });
  it('a changed filter goes back to page 1; an emptied one disappears', () => {
    expect(withFilter({ status: 'failed', page: '4' }, 'sentiment', 'negative')).toEqual({ status: 'failed', sentiment: 'negative' });
    expect(withFilter({ status: 'failed', page: '4' }, 'page', '5')).toEqual({ status: 'failed', page: '5' });
    expect(withFilter({ status: 'failed', search: 'x' }, 'search', '  ')).toEqual({ status: 'failed' });
  });
  it('sends whole UTC days as date-times to the API', () => {
    expect(apiQuery({ start_date: '2026-11-01', end_date: '2026-11-02', status: 'completed' })).toEqual({
      start_date: '2026-11-01T00:00:00.000Z',
      end_date: '2026-11-02T23:59:59.999Z',
      status: 'completed',
    });
  });
});

describe('overview rules', () => {
  it('counts per hour over at most two days, per day beyond', () => {
    expect(bucketFor('2026-11-25', '2026-11-26')).toBe('hour');
    expect(bucketFor('2026-11-24', '2026-11-26')).toBe('day');
    expect(bucketFor('2026-11-26', '2026-11-26')).toBe('hour');
  });
  it('the last N calendar days end today (UTC)', () => {
    expect(recentDays(14, new Date('2026-11-26T05:00:00Z'))).toEqual({ start: '2026-11-13', end: '2026-11-26' });
  });
  it('shares are whole percent, largest first, and zero of nothing', () => {
    expect(shares({ neutral: 1, positive: 3 })).toEqual([
      { key: 'positive', count: 3, percent: 75 },
      { key: 'neutral', count: 1, percent: 25 },
    ]);
    expect(shares({ positive: 0 })).toEqual([{ key: 'positive', count: 0, percent: 0 }]);
  });
});

describe('problems', () => {
  it('reads the error envelope, and names what a bare status means', () => {
    expect(problemOf(422, { error: { type: 'validation_error', code: 'invalid_parameter', message: 'Bad phone.', field: 'phone_number' } })).toEqual({
      status: 422, code: 'invalid_parameter', message: 'Bad phone.', field: 'phone_number',
    });
    expect(problemOf(502, '<html>')).toMatchObject({ status: 502, code: 'internal_error' });
  });
  it('finds the missing scope in a 403', () => {
    const problem = problemOf(403, { error: { code: 'insufficient_permissions', message: 'This API key lacks the agents:write scope required by POST /v1/agents.' } });
    expect(missingScopeOf(problem)).toBe('agents:write');
    expect(missingScopeOf({ status: 404, code: 'not_found', message: 'agents:write' })).toBeUndefined();
  });
  it('shows a nested field at the input that holds it', () => {
    expect(formFieldOf({ field: 'business_hours.schedule[0].open' }, ['name', 'business_hours'])).toBe('business_hours');
    expect(formFieldOf({ field: 'phone_number' }, ['phone_number'])).toBe('phone_number');
    expect(formFieldOf({ field: 'account' }, ['name'])).toBeUndefined();
    expect(formFieldOf({}, ['name'])).toBeUndefined();
  });
});

describe('inControlWords', () => {
  it("names the control a person sees instead of the request's parameter", () => {
    expect(inControlWords('start_date must be a date (YYYY-MM-DD) or an ISO 8601 timestamp.', 'start_date', 'From')).toBe('From must be a date (YYYY-MM-DD) or an ISO 8601 timestamp.');
    expect(inControlWords('The value of caller is not a phone number.', 'caller', 'Caller number')).toBe('The value of Caller number is not a phone number.');
    expect(inControlWords('Something is wrong.', undefined, 'From')).toBe('Something is wrong.');
  });
});

describe('liveCalls', () => {
  const call = (id: string, status: string, start: string) => ({ id, status, start_time: start });
  it('keeps the listed calls in progress, adds the new ones the stream reports and drops the ones that ended, newest first', () => {
    const listed = [call('a', 'in_progress', '2026-11-27T09:00:00Z'), call('b', 'in_progress', '2026-11-27T09:01:00Z')];
    const changes = [call('c', 'in_progress', '2026-11-27T09:02:00Z'), call('a', 'completed', '2026-11-27T09:00:00Z')];
    expect(liveCalls(listed, changes).map((c) => c.id)).toEqual(['c', 'b']);
    expect(liveCalls([], [])).toEqual([]);
  });
});

describe('agentFigures', () => {
  it("gives each agent's calls, average duration, sentiment shares among rated calls and failure rate", () => {
    const stats = { total: 10, by_status: { failed: 2 }, by_sentiment: { positive: 3, neutral: 0, negative: 1 }, duration: { avg: 64.5 } };
    expect(agentFigures([{ agent: { id: 'a', name: 'Front Desk' }, stats }, { agent: { id: 'b', name: 'Billing' } }])).toEqual([
      { id: 'a', name: 'Front Desk', calls: 10, averageDuration: 64.5, positivePercent: 75, negativePercent: 25, failurePercent: 20 },
      { id: 'b', name: 'Billing' },
    ]);
    const none = { total: 0, by_status: { failed: 0 }, by_sentiment: { positive: 0, neutral: 0, negative: 0 }, duration: { avg: null } };
    expect(agentFigures([{ agent: { id: 'a', name: 'A' }, stats: none }])[0]).toEqual({ id: 'a', name: 'A', calls: 0, averageDuration: null, positivePercent: undefined, negativePercent: undefined, failurePercent: undefined });
  });
});
