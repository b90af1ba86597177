import { describe, expect, it } from '@jest/globals';
import { apiQuery, filtersFromSearch, searchFromFilters, withFilter } from './conversation-filters';
import { transcriptFileName } from './downloads';
import { formatDuration, formatMoney, formatTime, humanize } from './format';
import { keyFromFragment } from './fragment';
import { highlightParts } from './highlight';
import { bucketFor, histogramLabel, recentDays, shares } from './overview';
import { formFieldOf, missingScopeOf, problemOf } from './problems';

describe('keyFromFragment', () => {
  it('takes api_key out of the fragment and keeps the rest', () => {
    expect(keyFromFragment('#api_key=vk_abc')).toEqual({ key: 'vk_abc', fragment: '' });
    expect(keyFromFragment('#api_key=vk_abc&tab=2')).toEqual({ key: 'vk_abc', fragment: '#tab=2' });
    expect(keyFromFragment('#api_key=vk%2Babc')).toEqual({ key: 'vk+abc', fragment: '' });
  });
  it('leaves a fragment without a key alone', () => {
    expect(keyFromFragment('#section')).toEqual({ key: undefined, fragment: '#section' });
    expect(keyFromFragment('')).toEqual({ key: undefined, fragment: '' });
  });
  it('drops an empty key without signing in', () => {
    expect(keyFromFragment('#api_key=')).toEqual({ key: undefined, fragment: '' });
  });
});

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

describe('highlightParts', () => {
  it('marks every case-insensitive occurrence and keeps the original text', () => {
    expect(highlightParts('Refund? A refund please', 'REFUND')).toEqual([
      { text: 'Refund', match: true },
      { text: '? A ', match: false },
      { text: 'refund', match: true },
      { text: ' please', match: false },
    ]);
  });
  it('marks nothing without a term', () => {
    expect(highlightParts('hello', undefined)).toEqual([{ text: 'hello', match: false }]);
    expect(highlightParts('hello', ' ')).toEqual([{ text: 'hello', match: false }]);
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
  it('labels histogram buckets', () => {
    expect(histogramLabel(0, 30)).toBe('0 s–30 s');
    expect(histogramLabel(60, 120)).toBe('1 min–2 min');
    expect(histogramLabel(1800, null)).toBe('30 min+');
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

describe('formatting', () => {
  it('durations, money, times and words', () => {
    expect(formatDuration(42)).toBe('0:42');
    expect(formatDuration(3727)).toBe('1:02:07');
    expect(formatDuration(null)).toBe('—');
    expect(formatMoney(0.1842)).toBe('0.1842 USD');
    expect(formatMoney(39.4213)).toBe('39.42 USD');
    expect(formatTime('2026-11-26T08:29:09.123Z')).toBe('2026-11-26 08:29:09 UTC');
    expect(humanize('appointment_booked')).toBe('Appointment booked');
  });
  it('names a download after the conversation, safely', () => {
    expect(transcriptFileName('call_01HZX3', 'vtt')).toBe('call_01HZX3-transcript.vtt');
    expect(transcriptFileName('a/b:c', 'text')).toBe('a_b_c-transcript.txt');
  });
});
