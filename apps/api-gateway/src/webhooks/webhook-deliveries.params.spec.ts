import { describe, expect, it } from '@jest/globals';
import { deliveryDate, parseDeliveryQuery } from './webhook-deliveries.params.js';

describe('GET /v1/webhook-deliveries query', () => {
  it('reads every filter and the page', () => {
    expect(parseDeliveryQuery({ platform: 'platform_b', outcome: 'ignored', conversation_id: 'call-1', start_date: '2025-01-31', end_date: '2025-01-31', page: '2', per_page: '500' })).toEqual({
      ok: true,
      query: {
        filters: { platform: 'platform_b', outcome: 'ignored', conversationId: 'call-1', receivedFrom: '2025-01-31T00:00:00Z', receivedTo: '2025-01-31T23:59:59.999Z' },
        page: 2,
        perPage: 100,
      },
    });
  });

  it.each([
    [{ outcome: 'lost' }, 'outcome', 'invalid_parameter'],
    [{ platform: 'platform_c' }, 'platform', 'invalid_parameter'],
    [{ conversation_id: 'has space' }, 'conversation_id', 'invalid_parameter'],
    [{ start_date: '31/01/2025' }, 'start_date', 'invalid_date_format'],
    [{ end_date: '2025-02-30' }, 'end_date', 'invalid_date_format'],
    [{ start_date: '2025-02-02', end_date: '2025-02-01' }, 'end_date', 'invalid_parameter'],
    [{ page: '0' }, 'page', 'invalid_parameter'],
    [{ outcome: ['accepted', 'ignored'] }, 'outcome', 'invalid_parameter'],
    [{ colour: 'blue' }, 'colour', 'invalid_parameter'],
  ])('%j → 400 naming %s', (query, field, code) => {
    const parsed = parseDeliveryQuery(query);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect({ field: parsed.problem.field, code: parsed.problem.code }).toEqual({ field, code });
  });

  it('takes dates alone as whole days and timestamps with an offset as they are', () => {
    expect(deliveryDate('2025-01-31T14:05:00+02:00', false)).toBe('2025-01-31T14:05:00+02:00');
    expect(deliveryDate('2025-01-31T14:05:00', false)).toBeUndefined();
    expect(deliveryDate('2024-02-29', true)).toBe('2024-02-29T23:59:59.999Z');
  });
});
