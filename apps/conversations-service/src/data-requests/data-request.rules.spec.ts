import { describe, expect, it } from '@jest/globals';
import { maskCallerNumber } from '@voice/contracts';
import { downloadProblem, parseDataRequestBody, parseDataRequestListQuery, type DataRequestRow } from './data-request.rules.js';

const row = (changes: Partial<DataRequestRow> = {}): DataRequestRow => ({
  id: 'dr_000000000000000000000001', account_id: 'acc_1', type: 'access', caller_number_masked: '**********23', status: 'completed',
  conversations_found: 2, conversations_done: 2, created_at: new Date('2026-01-01T00:00:00Z'), completed_at: new Date('2026-01-01T00:01:00Z'),
  download_expires_at: new Date('2026-01-02T00:01:00Z'), ...changes,
});

describe('data request rules', () => {
  it('takes a type and an E.164 caller number, and names the field that is wrong', () => {
    expect(parseDataRequestBody({ type: 'erasure', caller_number: '+14155550123' })).toEqual({ type: 'erasure', caller_number: '+14155550123' });
    expect(parseDataRequestBody([])).toMatchObject({ problem: { code: 'invalid_request' } });
    expect(parseDataRequestBody({ caller_number: '+14155550123' })).toMatchObject({ problem: { code: 'missing_required_field', field: 'type' } });
    expect(parseDataRequestBody({ type: 'delete', caller_number: '+14155550123' })).toMatchObject({ problem: { code: 'invalid_parameter', field: 'type' } });
    for (const number of ['14155550123', '+0415', '+1 415 555 0123', 14155550123, '+1415555012345678']) {
      expect(parseDataRequestBody({ type: 'access', caller_number: number })).toMatchObject({ problem: { code: 'invalid_parameter', field: 'caller_number' } });
    }
    expect(parseDataRequestBody({ type: 'access', caller_number: '+14155550123', note: 'x' })).toMatchObject({ problem: { code: 'invalid_parameter', field: 'note' } });
  });

  it('pages like every list', () => {
    expect(parseDataRequestListQuery({})).toEqual({ page: 1, per_page: 25 });
    expect(parseDataRequestListQuery({ page: '2', per_page: '500' })).toEqual({ page: 2, per_page: 100 });
    expect(parseDataRequestListQuery({ page: '0' })).toMatchObject({ problem: { field: 'page' } });
    expect(parseDataRequestListQuery({ status: 'done' })).toMatchObject({ problem: { field: 'status' } });
  });

  it('masks the caller but for the last 2 digits', () => {
    expect(maskCallerNumber('+14155550123')).toBe('**********23');
  });

  it('serves a completed access document until its expiry, and says why not otherwise', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    expect(downloadProblem(row(), now)).toBeUndefined();
    expect(downloadProblem(row({ status: 'running', completed_at: null, download_expires_at: null }), now)).toMatchObject({ code: 'export_not_ready' });
    expect(downloadProblem(row(), new Date('2026-01-02T00:01:00Z'))).toMatchObject({ code: 'export_expired' });
    expect(downloadProblem(row({ type: 'erasure', download_expires_at: null }), now)).toMatchObject({ code: 'not_found' });
  });
});
