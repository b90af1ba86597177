import { describe, expect, it } from '@jest/globals';
import { credentialsVerdict, notEnabledProblem, unknownPlatformProblem } from './integration.rules.js';

describe('integration rules', () => {
  it('knows only platform_a and platform_b, naming the valid values', () => {
    expect(unknownPlatformProblem('platform_a')).toBeUndefined();
    expect(unknownPlatformProblem('platform_c')).toEqual(expect.objectContaining({ code: 'invalid_parameter', field: 'platform', valid_values: ['platform_a', 'platform_b'] }));
    expect(unknownPlatformProblem(42)?.code).toBe('invalid_parameter');
  });

  it('needs the platform in the account’s voice_platforms', () => {
    const account = { id: 'acc_1', agent_limit: 5, voice_platforms: ['platform_a'] };
    expect(notEnabledProblem(account, 'platform_a')).toBeUndefined();
    expect(notEnabledProblem(account, 'platform_b')?.code).toBe('platform_not_enabled');
  });

  it('turns the credentials check into a status to save or a refusal naming the field', () => {
    expect(credentialsVerdict('platform_a', undefined)).toEqual({ save: 'verified' });
    expect(credentialsVerdict('platform_a', { kind: 'transient', message: 'timeout' })).toEqual({ save: 'unreachable' });
    expect(credentialsVerdict('platform_a', { kind: 'invalid_credentials', message: '401' })).toEqual({
      refuse: expect.objectContaining({ code: 'invalid_platform_credentials', field: 'api_key' }),
    });
    expect(credentialsVerdict('platform_a', { kind: 'rejected', message: '403' })).toEqual({ refuse: expect.objectContaining({ field: 'api_key' }) });
    expect(credentialsVerdict('platform_a', { kind: 'base_url_refused', message: 'internal' })).toEqual({ refuse: expect.objectContaining({ field: 'base_url' }) });
    expect(credentialsVerdict('platform_a', { kind: 'not_found', message: '404' })).toEqual({ refuse: expect.objectContaining({ field: 'base_url' }) });
    expect(credentialsVerdict('platform_a', { kind: 'number_in_use', message: '?' })).toEqual({ save: 'unverified' });
  });
});
