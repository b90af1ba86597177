import { describe, expect, it } from '@jest/globals';
import { compareDecimals, parseIsoDate, parseListQuery } from './list-conversations.params.js';
import { escapeLike } from '../conversation-filters/conversation-filters.js';
import { buildListSql, countedFacet, durationRangeOf, SEARCH_WORK_MEM } from './list-conversations.store.js';

const ok = (q: Record<string, string>) => {
  const r = parseListQuery(q);
  if (!r.ok) throw new Error(JSON.stringify(r.problem));
  return r.filter;
};

describe('list query parameters', () => {
  it('defaults: page 1, 25 per page, newest first', () => {
    expect(ok({})).toMatchObject({ page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' });
  });
  it('caps per_page at 100', () => {
    expect(ok({ per_page: '101' }).per_page).toBe(100);
    expect(ok({ per_page: '99999999999999999999999' }).per_page).toBe(100);
    expect(ok({ per_page: '007' }).per_page).toBe(7);
  });
  it('bounds free-text filters at 200 characters, counted as code points', () => {
    for (const name of ['agent_id', 'outcome', 'topic', 'search']) {
      expect(parseListQuery({ [name]: '😀'.repeat(200) }).ok).toBe(true);
      expect(parseListQuery({ [name]: '😀\uFE0F'.repeat(101) })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: name } });
    }
  });
  it('lower-cases search, topic and outcome; empty search means no search', () => {
    expect(ok({ search: 'Refund', topic: 'Billing', outcome: 'Resolved' })).toMatchObject({ search: 'refund', topic: 'billing', outcome: 'resolved' });
    expect(ok({ search: '  ' }).search).toBeUndefined();
  });
  it('reads an unencoded + of an E.164 caller (arrives as a space)', () => {
    expect(ok({ caller: ' 14155550123' }).caller).toBe('+14155550123');
  });
  it.each([
    ['page', '0'], ['page', '1e3'], ['page', '99999999999999999999'], ['per_page', '0'], ['per_page', '000'], ['per_page', 'ten'], ['per_page', '1.0'], ['min_duration', '-1'], ['max_duration', '3.0'], ['caller', '+0123'], ['agent_id', ''],
  ])('%s=%j is invalid_parameter naming the field', (field, value) => {
    expect(parseListQuery({ [field]: value })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field } });
  });
  it('refuses repeated, nested and unknown parameters, naming them', () => {
    expect(parseListQuery({ status: ['completed', 'failed'] })).toMatchObject({ ok: false, problem: { field: 'status' } });
    expect(parseListQuery({ status: { x: 'y' } } as never)).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: 'status' } });
    expect(parseListQuery({ sentimnet: 'negative' })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: 'sentimnet' } });
  });
  it('reads min_cost/max_cost as exact USD decimals, refusing anything else on the parameter', () => {
    expect(ok({ min_cost: '0.25', max_cost: ' 10 ' })).toMatchObject({ min_cost: '0.25', max_cost: '10' });
    expect(ok({ min_cost: '0', max_cost: '0.0' })).toMatchObject({ min_cost: '0', max_cost: '0.0' });
    for (const [field, value] of [['min_cost', '-0.1'], ['max_cost', '1e3'], ['min_cost', '.5'], ['min_cost', '5.'], ['max_cost', 'USD 1'], ['min_cost', '1,5'], ['min_cost', ''], ['max_cost', '1'.repeat(33)], ['min_cost', '+1']]) {
      expect([field, value, parseListQuery({ [field]: value })]).toEqual([field, value, { ok: false, problem: expect.objectContaining({ code: 'invalid_parameter', field }) }]);
    }
    expect(parseListQuery({ min_cost: ['1', '2'] })).toMatchObject({ ok: false, problem: { field: 'min_cost' } });
  });
  it('min_cost above max_cost is invalid on min_cost, compared exactly', () => {
    expect(parseListQuery({ min_cost: '0.30', max_cost: '0.25' })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: 'min_cost' } });
    expect(parseListQuery({ min_cost: '10', max_cost: '9.99999999999999999999' })).toMatchObject({ ok: false, problem: { field: 'min_cost' } });
    expect(ok({ min_cost: '0.250', max_cost: '00.25' })).toMatchObject({ min_cost: '0.250', max_cost: '00.25' });
    expect(ok({ min_cost: '9.99999999999999999999', max_cost: '10' }).max_cost).toBe('10');
  });
  it('start_date after end_date is invalid', () => {
    expect(parseListQuery({ start_date: '2025-02-01', end_date: '2025-01-01' })).toMatchObject({ ok: false, problem: { field: 'start_date' } });
  });
});

describe('ISO 8601 dates of the filters', () => {
  it.each([
    ['2025-01-31', false, '2025-01-31T00:00:00.000000000Z'],
    // The last microsecond of the day: start times are stored with microseconds.
    ['2025-01-31', true, '2025-01-31T23:59:59.999999000Z'],
    ['2025-01-31T10:00Z', false, '2025-01-31T10:00:00.000000000Z'],
    ['2025-01-31T10:00:00', false, '2025-01-31T10:00:00.000000000Z'],
    ['2025-01-31T10:00:00.5+0200', false, '2025-01-31T08:00:00.500000000Z'],
    ['2025-01-31T10:00:00 02:00', false, '2025-01-31T08:00:00.000000000Z'],
    ['2024-02-29T23:59:59-05:00', false, '2024-03-01T04:59:59.000000000Z'],
    ['2025-01-31T10:00:00.123456789Z', false, '2025-01-31T10:00:00.123456789Z'],
    // Years below 100 are the years written, not 19xx.
    ['0099-12-31', false, '0099-12-31T00:00:00.000000000Z'],
    ['0005-03-01T12:00:00+01:00', false, '0005-03-01T11:00:00.000000000Z'],
    ['0004-02-29', true, '0004-02-29T23:59:59.999999000Z'],
    // The edges of years 0001–9999, in UTC.
    ['0001-01-01T00:00:00Z', false, '0001-01-01T00:00:00.000000000Z'],
    ['0001-01-01T00:30:00-01:00', false, '0001-01-01T01:30:00.000000000Z'],
    ['9999-12-31', true, '9999-12-31T23:59:59.999999000Z'],
    ['9999-12-31T23:59:59.999999999Z', false, '9999-12-31T23:59:59.999999999Z'],
    ['9999-12-31T23:59:59+10:00', false, '9999-12-31T13:59:59.000000000Z'],
  ])('%s (end of day: %s) → %s', (raw, endOfDay, expected) => {
    expect(parseIsoDate(raw, endOfDay)).toBe(expected);
  });
  it.each(['31/01/2025', '2025-13-01', '2025-02-29', '2025-01-31T25:00:00Z', 'yesterday', '1738332300', '2025-1-5', '0003-02-29', '1900-02-29'])('rejects %s', (raw) => {
    expect(parseIsoDate(raw)).toBeUndefined();
  });
  it.each(['0000-01-01', '0000-01-01T00:00:00Z', '0000-12-31T23:00:00-02:00', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59-10:00', '10000-01-01'])(
    'rejects %s: outside years 0001–9999 as written or in UTC',
    (raw) => {
      expect(parseIsoDate(raw)).toBeUndefined();
      expect(parseIsoDate(raw, true)).toBeUndefined();
    },
  );
  it.each([
    ['start_date', '0000-01-01T00:00:00Z'],
    ['end_date', '0000-06-01T00:00:00Z'],
    ['start_date', '9999-12-31T23:59:59-10:00'],
    ['end_date', '0000-12-31'],
  ])('%s=%s is invalid_date_format naming the field (before: a 500 from PostgreSQL)', (field, value) => {
    expect(parseListQuery({ [field]: value })).toMatchObject({ ok: false, problem: { code: 'invalid_date_format', field } });
  });
  it('keeps the order of the range exact below the millisecond', () => {
    expect(ok({ start_date: '2025-01-31T10:00:00.0001Z', end_date: '2025-01-31T10:00:00.0009Z' })).toMatchObject({
      start_date: '2025-01-31T10:00:00.000100000Z', end_date: '2025-01-31T10:00:00.000900000Z',
    });
    expect(parseListQuery({ start_date: '2025-01-31T10:00:00.0009Z', end_date: '2025-01-31T10:00:00.0001Z' })).toMatchObject({ ok: false, problem: { field: 'start_date' } });
    expect(ok({ start_date: '0099-01-01', end_date: '2025-01-01' })).toMatchObject({ start_date: '0099-01-01T00:00:00.000000000Z' });
  });
});

describe('list SQL', () => {
  it('escapes LIKE wildcards so % and _ are literal', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
  });
  it('always scopes to the account and ends every order with start_time and id', () => {
    const sql = buildListSql('acc_1', ok({ sort_by: 'sentiment', sort_order: 'asc', status: 'completed' }));
    expect(sql.where).toMatch(/^c\.account_id = \$1/);
    expect(sql.params[0]).toBe('acc_1');
    expect(sql.orderBy).toBe('c.sentiment_rank ASC NULLS LAST, c.start_time ASC, c.id ASC');
    expect(buildListSql('a', ok({ sort_by: 'duration' })).orderBy).toBe('c.duration DESC, c.start_time DESC, c.id DESC');
  });
  it('the reverse order is the exact inverse (nulls first), for reading deep pages from the far end', () => {
    expect(buildListSql('a', ok({ sort_by: 'sentiment', sort_order: 'asc' })).reverseOrderBy).toBe('c.sentiment_rank DESC NULLS FIRST, c.start_time DESC, c.id DESC');
    expect(buildListSql('a', ok({})).reverseOrderBy).toBe('c.start_time ASC, c.id ASC');
  });
  it('reads a topic or search list from its side table when every other filter is on a column that table carries', () => {
    const topic = buildListSql('a', ok({ topic: 'Billing', status: 'failed', agent_id: 'agt_1', start_date: '2025-01-01' })).narrow;
    expect(topic?.from).toBe('conversations.conversation_topics d');
    expect(topic?.where).toBe('d.account_id = $1 AND d.topic = $5 AND d.agent_id = $2 AND d.status = $3 AND d.start_time >= $4::timestamptz');
    expect(topic?.orderBy).toBe('d.start_time DESC, d.conversation_id DESC');
    expect(topic?.reverseOrderBy).toBe('d.start_time ASC, d.conversation_id ASC');
    const search = buildListSql('a', ok({ search: '50%', sort_order: 'asc' }));
    expect(search.params).toEqual(['a', '%50\\%%']);
    expect(search.narrow).toMatchObject({ from: 'conversations.conversation_search d', id: 'd.id', orderBy: 'd.start_time ASC, d.id ASC' });
    expect(search.narrow?.where).toBe("d.account_id = $1 AND d.search_text LIKE $2 ESCAPE '\\'");
  });
  it('counts on the side table but pages on the conversations when the sort key is not carried there', () => {
    const sql = buildListSql('a', ok({ topic: 'billing', sort_by: 'duration' }));
    expect(sql.narrow).toMatchObject({ from: 'conversations.conversation_topics d', orderBy: null, reverseOrderBy: null });
  });
  it('reads from the conversations when a filter is not on the side table, or both a topic and a search select', () => {
    expect(buildListSql('a', ok({ topic: 'billing', has_recording: 'true' })).narrow).toBeUndefined();
    expect(buildListSql('a', ok({ search: 'refund', sentiment: 'negative' })).narrow).toBeUndefined();
    expect(buildListSql('a', ok({ search: 'refund', topic: 'billing' })).narrow).toBeUndefined();
    expect(buildListSql('a', ok({ status: 'failed' })).narrow).toBeUndefined();
  });
  it('counts from the kept counts exactly when one counted filter, or an agent or a topic with a status, selects', () => {
    expect(countedFacet(ok({ status: 'failed', sort_by: 'duration', page: '9' }))).toEqual({ facet: 'status', value: 'failed' });
    expect(countedFacet(ok({ agent_id: 'agt_1', status: 'completed' }))).toEqual({ facet: 'status:agent_id', value: 'completed:agt_1' });
    expect(countedFacet(ok({ topic: 'Billing', status: 'failed' }))).toEqual({ facet: 'status:topic', value: 'failed:billing' });
    expect(countedFacet(ok({ topic: 'billing', status: 'failed', agent_id: 'agt_1' }))).toBeUndefined();
    expect(countedFacet(ok({ has_recording: 'false' }))).toEqual({ facet: 'has_recording', value: 'false' });
    expect(countedFacet(ok({ topic: 'Billing' }))).toEqual({ facet: 'topic', value: 'billing' });
    expect(countedFacet(ok({ sentiment: 'negative' }))).toEqual({ facet: 'sentiment', value: 'negative' });
    expect(countedFacet(ok({ outcome: 'Resolved' }))).toEqual({ facet: 'outcome', value: 'resolved' });
    expect(countedFacet(ok({}))).toBeUndefined();
    expect(countedFacet(ok({ caller: '+14155550123' }))).toBeUndefined();
    expect(countedFacet(ok({ status: 'failed', sentiment: 'negative' }))).toBeUndefined();
    expect(countedFacet(ok({ min_duration: '800' }))).toBeUndefined();
    expect(countedFacet(ok({ agent_id: 'agt_1', topic: 'billing' }))).toBeUndefined();
    expect(countedFacet(ok({ search: 'refund' }))).toBeUndefined();
  });

  it('sums a duration range alone from the kept duration counts', () => {
    expect(durationRangeOf(ok({ min_duration: '800' }))).toEqual({ min: 800, max: null });
    expect(durationRangeOf(ok({ min_duration: '100', max_duration: '120', sort_by: 'duration', page: '40' }))).toEqual({ min: 100, max: 120 });
    expect(durationRangeOf(ok({ max_duration: '0' }))).toEqual({ min: null, max: 0 });
    expect(durationRangeOf(ok({}))).toBeUndefined();
    expect(durationRangeOf(ok({ min_duration: '800', status: 'completed' }))).toBeUndefined();
  });
  it('knows when only the account scopes the list', () => {
    expect(buildListSql('a', ok({ page: '3', sort_by: 'duration' })).unfiltered).toBe(true);
    expect(buildListSql('a', ok({ status: 'failed' })).unfiltered).toBe(false);
  });
  it('counts a substring search with the work_mem that keeps its bitmap exact, and nothing else', () => {
    // A search with an agent at ten million conversations overflowed the default 4 MB: 6.1 s instead of 0.45 s.
    expect(SEARCH_WORK_MEM).toBe('64MB');
    const searching: Array<Record<string, string>> = [{ search: 'refund' }, { search: 'refund', agent_id: 'agt_1' }, { search: 'ok', status: 'failed', min_duration: '60' }];
    for (const q of searching) {
      expect(buildListSql('a', ok(q)).workMem).toBe(SEARCH_WORK_MEM);
    }
    const others: Array<Record<string, string>> = [{}, { agent_id: 'agt_1', status: 'completed' }, { topic: 'billing' }, { min_duration: '60', start_date: '2025-01-01' }];
    for (const q of others) {
      expect(buildListSql('a', ok(q)).workMem).toBeUndefined();
    }
  });
});

describe('compareDecimals', () => {
  it.each([
    ['0', '0.0', 0], ['1', '0.999', 1], ['0.1', '0.10', 0], ['007', '7', 0], ['12.5', '3.75', 1], ['3.75', '12.5', -1], ['0.0001', '0.001', -1],
  ])('%s vs %s → %d', (a, b, expected) => {
    expect(compareDecimals(a, b)).toBe(expected);
    expect(compareDecimals(b, a)).toBe(-expected || 0);
  });
});
