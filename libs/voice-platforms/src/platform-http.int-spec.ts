import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { failure } from './testing/platform-calls.js';
import { managementAdapter } from './registry.js';

/**
 * A key saved before its characters were checked can hold what `Authorization: Bearer <key>` cannot carry.
 * Every platform call goes through PlatformHttp: such a key is a credentials failure there (the kind that
 * waits for the key to be replaced), never an error escaping as an internal one, and nothing is sent.
 */
const UNSENDABLE_KEYS = ['key\nInjected: yes', 'key\r\n', 'key\u0000', 'key\u007f', 'kéy\u0100', 'ключ', 'key😀', 'key\ud800'];

let simulators: RunningSimulators;
const options = { allowPrivate: true, timeoutMs: 1000 };
const adapters = { platform_a: managementAdapter('platform_a', options), platform_b: managementAdapter('platform_b', options) };

beforeAll(async () => {
  simulators = await startSimulators();
});

afterAll(async () => {
  await simulators?.stop();
});

beforeEach(() => {
  simulators.platformA.reset();
  simulators.platformB.reset();
});

describe('platform calls with a key a header cannot carry', () => {
  it.each(['platform_a', 'platform_b'] as const)('%s: every such key is invalid_credentials on api_key, and no request reaches the platform', async (platform) => {
    const simulator = platform === 'platform_a' ? simulators.platformA : simulators.platformB;
    const baseUrl = platform === 'platform_a' ? simulators.urls.platformA : simulators.urls.platformB;
    for (const apiKey of UNSENDABLE_KEYS) {
      const error = await failure(adapters[platform].verifyCredentials({ baseUrl, apiKey }));
      expect([JSON.stringify(apiKey), error.kind, error.field, error.retryable]).toEqual([JSON.stringify(apiKey), 'invalid_credentials', 'api_key', false]);
      expect(error.message).toContain('cannot carry');
      const lookup = await failure(adapters[platform].findAgentByExternalId({ baseUrl, apiKey }, 'agt_aaaaaaaaaaaaaaaaaaaaaaaa'));
      expect(lookup.kind).toBe('invalid_credentials');
    }
    expect(simulator.requests()).toEqual([]);
  });

  it('a Latin-1 key (which a header can carry) is sent, and the platform’s refusal is the same invalid_credentials', async () => {
    const error = await failure(adapters.platform_a.verifyCredentials({ baseUrl: simulators.urls.platformA, apiKey: 'clé-latin-1' }));
    expect(error.kind).toBe('invalid_credentials');
    expect(error.status).toBe(401);
    expect(simulators.platformA.requests()).toHaveLength(1);
  });
});
