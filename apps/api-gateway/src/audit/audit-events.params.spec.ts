import { describe, expect, it } from '@jest/globals';
import { parseAuditQuery } from './audit-events.params.js';

const problem = (query: Record<string, unknown>) => {
  const parsed = parseAuditQuery(query);
  if (parsed.ok) throw new Error('expected a problem');
  return parsed.problem;
};

describe('GET /v1/audit-events query', () => {
  it('reads every filter, dates as whole days, page and per_page (capped)', () => {
    expect(
      parseAuditQuery({
        action: 'agent.updated', actor_key_id: 'key_0123456789abcdef01234567', target_id: 'agt_1', created_after: '2025-03-01',
        created_before: '2025-03-02', page: '2', per_page: '500',
      }),
    ).toEqual({
      ok: true,
      query: {
        filters: {
          action: 'agent.updated', actorKeyId: 'key_0123456789abcdef01234567', targetId: 'agt_1',
          createdAfter: '2025-03-01T00:00:00Z', createdBefore: '2025-03-02T23:59:59.999Z',
        },
        page: 2,
        perPage: 100,
      },
    });
    expect(parseAuditQuery({ created_after: '2025-03-01T10:00:00+02:00' })).toMatchObject({ ok: true, query: { filters: { createdAfter: '2025-03-01T10:00:00+02:00' } } });
  });

  it('names the field of each wrong parameter', () => {
    expect(problem({ action: 'agent.renamed' })).toMatchObject({ code: 'invalid_parameter', field: 'action', valid_values: expect.arrayContaining(['api_key.created']) });
    expect(problem({ actor_key_id: 'vk_secret' })).toMatchObject({ code: 'invalid_parameter', field: 'actor_key_id' });
    expect(problem({ target_id: 'a b' })).toMatchObject({ code: 'invalid_parameter', field: 'target_id' });
    expect(problem({ created_after: 'yesterday' })).toMatchObject({ code: 'invalid_date_format', field: 'created_after' });
    expect(problem({ created_before: '2025-02-30' })).toMatchObject({ code: 'invalid_date_format', field: 'created_before' });
    expect(problem({ created_after: '2025-03-02', created_before: '2025-03-01' })).toMatchObject({ code: 'invalid_parameter', field: 'created_before' });
    expect(problem({ action: ['agent.created', 'agent.deleted'] })).toMatchObject({ code: 'invalid_parameter', field: 'action' });
    expect(problem({ per_page: '0' })).toMatchObject({ code: 'invalid_parameter', field: 'per_page' });
    expect(problem({ actor: 'key_1' })).toMatchObject({ code: 'invalid_parameter', field: 'actor' });
  });
});
