import { describe, expect, it } from '@jest/globals';
import { parseDeliveryListQuery, parseRecoverBody } from './delivery-log.rules.js';

describe('the deliveries list’s query', () => {
  it('pages like every list and filters by status', () => {
    expect(parseDeliveryListQuery({})).toEqual({ page: 1, per_page: 25 });
    expect(parseDeliveryListQuery({ status: 'failed', page: '3', per_page: '1000' })).toEqual({ status: 'failed', page: 3, per_page: 100 });
  });

  it('refuses an unknown status with the valid values, and unknown or repeated parameters', () => {
    expect(parseDeliveryListQuery({ status: 'lost' })).toEqual({ problem: expect.objectContaining({ field: 'status', valid_values: ['pending', 'succeeded', 'failed'] }) });
    expect(parseDeliveryListQuery({ type: 'x' })).toEqual({ problem: expect.objectContaining({ field: 'type' }) });
    expect(parseDeliveryListQuery({ status: ['failed', 'pending'] })).toEqual({ problem: expect.objectContaining({ field: 'status' }) });
    expect(parseDeliveryListQuery({ page: '-1' })).toEqual({ problem: expect.objectContaining({ field: 'page' }) });
  });
});

describe('recover’s body', () => {
  const now = new Date('2026-01-02T00:00:00Z');

  it('takes an ISO date or instant up to now', () => {
    expect(parseRecoverBody({ since: '2026-01-01T10:00:00Z' }, now)).toEqual({ since: new Date('2026-01-01T10:00:00Z') });
    expect(parseRecoverBody({ since: '2026-01-01' }, now)).toEqual({ since: new Date('2026-01-01T00:00:00Z') });
  });

  it('refuses a missing, malformed or future since, and other fields', () => {
    expect(parseRecoverBody({}, now)).toEqual({ problem: expect.objectContaining({ code: 'missing_required_field', field: 'since' }) });
    expect(parseRecoverBody({ since: 'yesterday' }, now)).toEqual({ problem: expect.objectContaining({ code: 'invalid_date_format', field: 'since' }) });
    expect(parseRecoverBody({ since: '2026-02-01' }, now)).toEqual({ problem: expect.objectContaining({ code: 'invalid_parameter', field: 'since' }) });
    expect(parseRecoverBody({ since: '2026-01-01', until: 'x' }, now)).toEqual({ problem: expect.objectContaining({ field: 'until' }) });
    expect(parseRecoverBody('x', now)).toEqual({ problem: expect.objectContaining({ code: 'invalid_request' }) });
  });
});
