import { describe, expect, it } from '@jest/globals';
import { OUTBOUND_EVENT_TYPES } from '@voice/contracts';
import { parseEventListQuery } from './list-events.rules.js';

describe('GET /v1/events’ query', () => {
  it('takes every filter and pages like every list', () => {
    expect(parseEventListQuery({ type: 'conversation.ended', conversation_id: 'c1', agent_id: 'agt_1', created_after: '2026-01-01', created_before: '2026-01-02T10:00:00Z', per_page: '10' }))
      .toEqual({ type: 'conversation.ended', conversation_id: 'c1', agent_id: 'agt_1', created_after: new Date('2026-01-01T00:00:00Z'), created_before: new Date('2026-01-02T10:00:00Z'), page: 1, per_page: 10 });
    expect(parseEventListQuery({})).toEqual({ page: 1, per_page: 25 });
  });

  it('refuses an unknown type with the valid values, bad dates, and unknown parameters, each naming its field', () => {
    expect(parseEventListQuery({ type: 'call.ended' })).toEqual({ problem: expect.objectContaining({ field: 'type', valid_values: [...OUTBOUND_EVENT_TYPES] }) });
    expect(parseEventListQuery({ created_after: 'monday' })).toEqual({ problem: expect.objectContaining({ code: 'invalid_date_format', field: 'created_after' }) });
    expect(parseEventListQuery({ sort: 'asc' })).toEqual({ problem: expect.objectContaining({ field: 'sort' }) });
    expect(parseEventListQuery({ agent_id: 'a'.repeat(200) })).toEqual({ problem: expect.objectContaining({ field: 'agent_id' }) });
  });
});
