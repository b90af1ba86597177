import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadOpenApi, type OpenApiValidator } from './support/openapi.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/** Destructive: stops notifications-service, so it gets a system of its own. */
describe('api-gateway when notifications-service is down', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let openapi: OpenApiValidator;
  let outageAt: number;

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 2000 });
    account = await system.createAccount();
    openapi = await loadOpenApi(system.baseUrl);
    // The outage starts from a healthy system: a service just started may miss a 2 s ping on a busy machine, so the
    // first healthy answer is waited for (it must come; a system that never gets there fails here).
    const before = openapi.check('GET', '/health', await pollUntil(() => system.anonymous.get('/health'), (r) => r.status === 200, 30_000, 250));
    expect(before.body.data).toEqual({
      status: 'ok',
      checks: { database: 'ok', nats: 'ok', agents_service: 'ok', conversations_service: 'ok', notifications_service: 'ok' },
    });
    await system.stopService('notifications');
    outageAt = Date.now();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('health answers 503 naming notifications_service, the other checks ok', async () => {
    let res = openapi.check('GET', '/health', await system.anonymous.get('/health'));
    while (res.status === 200 && Date.now() - outageAt < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      res = openapi.check('GET', '/health', await system.anonymous.get('/health'));
    }
    expect(res.status).toBe(503);
    expect(res.body.data).toEqual({
      status: 'unavailable',
      checks: { database: 'ok', nats: 'ok', agents_service: 'ok', conversations_service: 'ok', notifications_service: 'unavailable' },
    });
  });

  it('the webhook endpoint routes answer 503 while the agents routes still work', async () => {
    const endpoints = openapi.check('GET', '/v1/webhook-endpoints', await account.api.get('/v1/webhook-endpoints'));
    expect(endpoints.status).toBe(503);
    expect(endpoints.body.error.code).toBe('service_unavailable');
    expect((await account.api.get('/v1/agents')).status).toBe(200);
  });
});
