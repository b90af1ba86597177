import { describe, expect, it } from '@jest/globals';
import { findProblem } from '@voice/contracts';
import { CreateAccountBody } from './create-account.body.js';

const valid = { name: 'Acme', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a'] };

describe('CreateAccountBody', () => {
  it('accepts a complete body', () => {
    expect(findProblem(CreateAccountBody, valid)).toBeUndefined();
    expect(findProblem(CreateAccountBody, { ...valid, agent_limit: 0 })).toBeUndefined();
  });

  it('entitles the account to both platforms when voice_platforms is omitted (the field is optional)', () => {
    const { voice_platforms: _omitted, ...rest } = valid;
    expect(findProblem(CreateAccountBody, rest)).toBeUndefined();
  });

  it.each(['name', 'plan', 'agent_limit'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    expect(findProblem(CreateAccountBody, body)).toMatchObject({ code: 'missing_required_field', field });
  });

  it.each([
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: '' }, 'name'],
    [{ plan: 7 }, 'plan'],
    [{ agent_limit: -1 }, 'agent_limit'],
    [{ agent_limit: 2.5 }, 'agent_limit'],
    [{ agent_limit: '5' }, 'agent_limit'],
    [{ agent_limit: 100_001 }, 'agent_limit'],
    [{ voice_platforms: ['platform_a', 'platform_a'] }, 'voice_platforms'],
    [{ extra: true }, 'extra'],
  ])('refuses %j as invalid_parameter on %s', (patch, field) => {
    expect(findProblem(CreateAccountBody, { ...valid, ...patch })).toMatchObject({ code: 'invalid_parameter', field });
  });

  it.each([[[]], [['platform_c']], ['platform_a']])('lists the valid platforms when voice_platforms is %j', (voice_platforms) => {
    expect(findProblem(CreateAccountBody, { ...valid, voice_platforms })).toMatchObject({
      code: 'invalid_parameter',
      field: 'voice_platforms',
      valid_values: ['platform_a', 'platform_b'],
    });
  });
});
