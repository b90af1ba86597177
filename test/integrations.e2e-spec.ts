import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { createLogger } from '@voice/service-kit';
import { Writable } from 'node:stream';
import type { ApiResponse } from './support/http.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/** A webhook secret long enough to get a hint, and nothing like any other value in the logs. */
const WEBHOOK_SECRET = 'whsec_e2e_Q9v7R3k1Zt5M';
const VIEW_FIELDS = ['api_key_hint', 'base_url', 'created_at', 'id', 'last_rejection', 'platform', 'rejected_deliveries_24h', 'status', 'updated_at', 'webhook_secret_hint', 'webhook_url'];

/**
 * Integrations as an HTTP client meets them, with every log line of the gateway and agents-service
 * captured at debug level: the secrets must appear in no response body and in no log line.
 */
describe('integrations over HTTP', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let simulators: RunningSimulators;
  const logs: string[] = [];
  const bodies: string[] = [];
  const apiKey = `${DEFAULT_API_KEY}`;

  const seen = <T>(res: ApiResponse<T>): ApiResponse<T> => {
    bodies.push(res.text);
    return res;
  };

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('e2e', sink);
    logger.level = 'debug';
    simulators = await startSimulators();
    system = await startSystem({ logger });
    account = await system.createAccount({ voice_platforms: ['platform_a'] });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await simulators?.stop();
  });

  it('PUT creates a verified integration, GET and the list show it without secrets, a second PUT replaces it keeping its webhook URL', async () => {
    const body = { api_key: apiKey, webhook_secret: WEBHOOK_SECRET, base_url: simulators.urls.platformA };
    const put = seen(await account.api.put('/v1/integrations/platform_a', body));
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.data).sort()).toEqual(VIEW_FIELDS);
    expect(put.body.data).toMatchObject({
      platform: 'platform_a',
      base_url: simulators.urls.platformA,
      status: 'verified',
      webhook_secret_hint: WEBHOOK_SECRET.slice(-4),
    });
    expect(put.body.data.webhook_url).toMatch(new RegExp(`^${system.baseUrl}/v1/webhooks/platform_a/int_[0-9a-f]+$`));

    const one = seen(await account.api.get('/v1/integrations/platform_a'));
    expect(one.body.data).toEqual(put.body.data);
    const list = seen(await account.api.get('/v1/integrations'));
    expect(list.body.data).toEqual([put.body.data]);

    const again = seen(await account.api.put('/v1/integrations/platform_a', { ...body, webhook_secret: `${WEBHOOK_SECRET}-2` }));
    expect(again.status).toBe(200);
    expect(again.body.data.webhook_url).toBe(put.body.data.webhook_url);
    expect(again.body.data.created_at).toBe(put.body.data.created_at);
  });

  it('a refused key is 422 invalid_platform_credentials on api_key and changes nothing', async () => {
    const before = seen(await account.api.get('/v1/integrations/platform_a'));
    const res = seen(await account.api.put('/v1/integrations/platform_a', { api_key: 'not-the-key-at-all', webhook_secret: WEBHOOK_SECRET, base_url: simulators.urls.platformA }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_platform_credentials', field: 'api_key' });
    expect(seen(await account.api.get('/v1/integrations/platform_a')).body.data).toEqual(before.body.data);
  });

  it('an unknown platform is 400 with the valid values; a platform the account lacks is 403 platform_not_enabled; bad bodies name the field', async () => {
    const body = { api_key: apiKey, webhook_secret: WEBHOOK_SECRET };
    const unknown = seen(await account.api.put('/v1/integrations/platform_z', body));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', field: 'platform', valid_values: ['platform_a', 'platform_b'] });
    expect(seen(await account.api.get('/v1/integrations/platform_z')).status).toBe(400);
    const notEnabled = seen(await account.api.put('/v1/integrations/platform_b', body));
    expect(notEnabled.status).toBe(403);
    expect(notEnabled.body.error).toMatchObject({ type: 'permission_error', code: 'platform_not_enabled' });
    const missing = seen(await account.api.put('/v1/integrations/platform_a', { api_key: apiKey }));
    expect([missing.status, missing.body.error.code, missing.body.error.field]).toEqual([400, 'missing_required_field', 'webhook_secret']);
    const badUrl = seen(await account.api.put('/v1/integrations/platform_a', { ...body, base_url: 'not a url' }));
    expect([badUrl.status, badUrl.body.error.code, badUrl.body.error.field]).toEqual([400, 'invalid_parameter', 'base_url']);
  });

  it('scopes: integrations:read to read, integrations:write to change; no key is 401', async () => {
    const writeOnly = await account.api.post('/v1/api-keys', { scopes: ['integrations:write'] });
    const readOnly = await account.api.post('/v1/api-keys', { scopes: ['integrations:read'] });
    const agentsOnly = await account.api.post('/v1/api-keys', { scopes: ['agents:read'] });
    expect(seen(await system.client(agentsOnly.body.data.api_key).get('/v1/integrations')).status).toBe(403);
    expect(seen(await system.client(writeOnly.body.data.api_key).get('/v1/integrations/platform_a')).status).toBe(403);
    expect(seen(await system.client(readOnly.body.data.api_key).get('/v1/integrations')).status).toBe(200);
    const denied = seen(await system.client(readOnly.body.data.api_key).put('/v1/integrations/platform_a', { api_key: apiKey, webhook_secret: WEBHOOK_SECRET }));
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_permissions']);
    expect(seen(await system.client(readOnly.body.data.api_key).delete('/v1/integrations/platform_a')).status).toBe(403);
    expect(seen(await system.anonymous.get('/v1/integrations')).status).toBe(401);
  });

  it('DELETE is 409 integration_in_use while a live agent uses the platform, then 204, then 404', async () => {
    const agent = await account.api.post('/v1/agents', { name: 'Uses platform_a', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const inUse = seen(await account.api.delete('/v1/integrations/platform_a'));
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ type: 'conflict_error', code: 'integration_in_use' });
    expect((await account.api.delete(`/v1/agents/${agent.body.data.id}`)).status).toBe(204);
    expect(seen(await account.api.delete('/v1/integrations/platform_a')).status).toBe(204);
    expect(seen(await account.api.delete('/v1/integrations/platform_a')).status).toBe(404);
    expect(seen(await account.api.get('/v1/integrations')).body.data).toEqual([]);
  });

  it('agents synced with the stored key — created, refused for the key, retried while the platform is down — log no secret either', async () => {
    seen(await account.api.put('/v1/integrations/platform_a', { api_key: apiKey, webhook_secret: WEBHOOK_SECRET, base_url: simulators.urls.platformA }));
    const agent = seen(await account.api.post('/v1/agents', { name: 'Logged agent', voice_platform: 'platform_a' }));
    expect(agent.body.data.platform_sync.state).toBe('synced');
    simulators.platformA.faults.revokeKeys();
    try {
      const refused = seen(await account.api.post('/v1/agents', { name: 'Refused agent', voice_platform: 'platform_a' }));
      expect([refused.status, refused.body.error.code]).toEqual([422, 'invalid_platform_credentials']);
    } finally {
      simulators.platformA.faults.restoreKeys();
    }
    await simulators.platformA.down('refuse');
    try {
      const pending = seen(await account.api.patch(`/v1/agents/${agent.body.data.id}`, { welcome_message: 'Back soon' }));
      expect(pending.body.data.platform_sync.state).toBe('pending');
      await new Promise((r) => setTimeout(r, 500)); // a few background retries, each logged
    } finally {
      await simulators.platformA.up();
    }
    expect(logs.some((line) => line.includes('platform sync will retry'))).toBe(true);
    expect(seen(await account.api.delete(`/v1/agents/${agent.body.data.id}`)).status).toBe(204);
  });

  it('no secret appears in any response body or in any log line (debug level)', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [apiKey, WEBHOOK_SECRET, 'not-the-key-at-all']) {
      expect(bodies.filter((text) => text.includes(secret))).toEqual([]);
      expect(logs.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
