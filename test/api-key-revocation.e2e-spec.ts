import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KEY_LOOKUP_TTL_MS } from '../apps/api-gateway/src/auth/api-keys.store.js';
import { startGateways, type Gateways } from './support/gateways.js';
import { apiClient } from './support/http.js';

/**
 * Gateways remember a key they have just looked up for a moment (KEY_LOOKUP_TTL_MS), so a request does
 * not cost a database round trip for its key. A revocation must still bite: at once on the gateway
 * that revoked, within that moment on every other replica.
 */
describe('a revoked API key across gateway replicas', () => {
  let gw: Gateways;

  beforeAll(async () => {
    gw = await startGateways(2);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  it('fails at once on the revoking gateway and within the lookup time on the other', async () => {
    const account = await gw.createAccount();
    const [one, two] = gw.urls.map((url) => apiClient(url, account.api_key));
    const created = await one.post('/v1/api-keys', { name: 'soon revoked', scopes: ['agents:read'] });
    expect(created.status).toBe(201);
    const [viaOne, viaTwo] = gw.urls.map((url) => apiClient(url, created.body.data.api_key));
    // Both gateways have just looked the key up (403: known, but without the api_keys scope), so both remember it.
    expect((await viaOne.get('/v1/api-keys')).status).toBe(403);
    expect((await viaTwo.get('/v1/api-keys')).status).toBe(403);

    expect((await one.delete(`/v1/api-keys/${created.body.data.id}`)).status).toBe(204);
    const revokedAt = Date.now();
    const first = await viaOne.get('/v1/api-keys');
    expect(first.status).toBe(401);
    expect(first.body.error).toMatchObject({ code: 'invalid_api_key' });

    let refusedAfter: number | undefined;
    for (const deadline = revokedAt + 5_000; Date.now() < deadline; ) {
      if ((await viaTwo.get('/v1/api-keys')).status === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(refusedAfter).toBeDefined();
    expect(refusedAfter!).toBeLessThanOrEqual(KEY_LOOKUP_TTL_MS + 250);
  }, 30_000);

  it('a key never seen is looked up, and an unknown key is never remembered as valid', async () => {
    const account = await gw.createAccount();
    const wrong = apiClient(gw.urls[1], `${account.api_key}x`);
    expect((await wrong.get('/v1/api-keys')).status).toBe(401);
    expect((await apiClient(gw.urls[1], account.api_key).get('/v1/api-keys')).status).toBe(200);
    expect((await wrong.get('/v1/api-keys')).status).toBe(401);
  }, 30_000);
});
