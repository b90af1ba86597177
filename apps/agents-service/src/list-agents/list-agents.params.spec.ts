import { describe, expect, it } from '@jest/globals';
import { parseListAgentsQuery } from './list-agents.params.js';

const params = (query: Record<string, string | string[]>) => {
  const result = parseListAgentsQuery(query);
  if ('problem' in result) throw new Error(JSON.stringify(result.problem));
  return result.params;
};
const problem = (query: Record<string, string | string[]>) => {
  const result = parseListAgentsQuery(query);
  if (!('problem' in result)) throw new Error('expected a problem');
  return result.problem;
};

describe('list agents query', () => {
  it('defaults to page 1 of 25', () => {
    expect(params({})).toEqual({ page: 1, per_page: 25 });
  });

  it('reads every filter', () => {
    expect(params({ status: 'paused', voice_platform: 'platform_b', search: '50%_off', page: '3', per_page: '10' })).toEqual({
      status: 'paused',
      voice_platform: 'platform_b',
      search: '50%_off',
      page: 3,
      per_page: 10,
    });
  });

  it('caps per_page at 100', () => {
    expect(params({ per_page: '1000' }).per_page).toBe(100);
    expect(params({ per_page: '100' }).per_page).toBe(100);
    expect(params({ per_page: '1' }).per_page).toBe(1);
  });

  it('treats empty values as not given', () => {
    expect(params({ status: '', search: '' })).toEqual({ page: 1, per_page: 25 });
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page: 'two' }, 'page'],
    [{ page: '99999999999999999999' }, 'page'],
    [{ per_page: '0' }, 'per_page'],
    [{ per_page: 'x' }, 'per_page'],
    [{ per_page: '2.0' }, 'per_page'],
    [{ search: 's'.repeat(101) }, 'search'],
    // Characters are code points: 60 emoji with a variation selector are 120 of them (the old count said 60).
    [{ search: '😀\uFE0F'.repeat(60) }, 'search'],
    [{ stauts: 'active' }, 'stauts'],
    [{ status: ['active', 'paused'] }, 'status'],
    [{ search: { nested: 'x' } as unknown as string }, 'search'],
    [{ page: { '0': '1' } as unknown as string }, 'page'],
  ])('refuses %j naming %s', (query, field) => {
    expect(problem(query)).toMatchObject({ code: 'invalid_parameter', field });
  });

  it('lists valid values for enumerated filters', () => {
    expect(problem({ status: 'deleted' })).toMatchObject({ field: 'status', valid_values: ['active', 'paused'] });
    expect(problem({ voice_platform: 'platform_c' })).toMatchObject({ field: 'voice_platform', valid_values: ['platform_a', 'platform_b'] });
  });
});
