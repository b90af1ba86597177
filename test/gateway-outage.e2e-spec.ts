import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { createLogger } from '@voice/service-kit';
import { startGateway } from '../apps/api-gateway/src/app.js';
import { KEY_LOOKUP_TTL_MS } from '../apps/api-gateway/src/auth/api-keys.store.js';
import { apiClient } from './support/http.js';
import { cuttableProxy } from './support/proxy.js';
import { loadOpenApi, type OpenApiValidator } from './support/openapi.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/** Destructive: stops agents-service, so it gets a system of its own. */
describe('api-gateway when a service is down', () => {
  const rpcTimeoutMs = 2000;
  let system: RunningSystem;
  let account: TestAccount;
  /** Outage answers are checked against the OpenAPI document too (503 with Retry-After, 500). */
  let openapi: OpenApiValidator;
  /** When agents-service stopped. */
  let outageAt: number;

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs });
    account = await system.createAccount();
    openapi = await loadOpenApi(system.baseUrl);
    expect((await system.anonymous.get('/health')).status).toBe(200);
    await system.stopService('agents');
    outageAt = Date.now();
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('health answers 503 with the same shape, naming the failing check, within a second or two of the outage', async () => {
    // A healthy answer is reused for up to 1 s (many pollers, one round of checks); a check gives each dependency 1 s.
    let res = openapi.check('GET', '/health', await system.anonymous.get('/health'));
    while (res.status === 200 && Date.now() - outageAt < 1000 + 1000) {
      await new Promise((r) => setTimeout(r, 50));
      res = openapi.check('GET', '/health', await system.anonymous.get('/health'));
    }
    expect(Date.now() - outageAt).toBeLessThan(1000 + 1000 + 500);
    expect(res.status).toBe(503);
    expect(res.body.data).toEqual({
      status: 'unavailable',
      checks: { database: 'ok', nats: 'ok', agents_service: 'unavailable', conversations_service: 'ok', notifications_service: 'ok' },
    });
    expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
  });

  it.each([
    ['POST', '/v1/agents', { name: 'Nobody home', voice_platform: 'platform_a' }],
    ['GET', '/v1/agents', undefined],
    ['GET', '/v1/agents/some-id', undefined],
  ])('%s %s → 503 service_unavailable, well within the RPC timeout', async (method, path, body) => {
    const started = Date.now();
    const res = openapi.check(method, path, await account.api.request(method, path, { body }));
    expect(Date.now() - started).toBeLessThan(rpcTimeoutMs + 1000);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error).toMatchObject({
      type: 'service_unavailable_error',
      code: 'service_unavailable',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('a service that takes the request but never answers → 503 after the RPC timeout, not a hang', async () => {
    const nc = await connect({ servers: system.natsUrl });
    // Subscribed like a hung replica: receives the request, never replies.
    const sub = nc.subscribe(`${system.namespace}.agents.get`, { queue: 'agents-service' });
    await nc.flush();
    try {
      const started = Date.now();
      const res = await account.api.get('/v1/agents/hung');
      const elapsed = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', request_id: res.headers.get('x-request-id') });
      expect(elapsed).toBeGreaterThanOrEqual(rpcTimeoutMs - 50);
      expect(elapsed).toBeLessThan(rpcTimeoutMs + 1000);
    } finally {
      sub.unsubscribe();
      await nc.close();
    }
  });

  it('a service answering with an error outside the catalog → 500 internal_error, not a fake outage', async () => {
    const nc = await connect({ servers: system.natsUrl });
    // A misbehaving replica speaking Nest's wire format, replying with an unknown error code.
    const sub = nc.subscribe(`${system.namespace}.agents.get`, {
      queue: 'agents-service',
      callback: (_err, msg) => {
        const { id } = msg.json<{ id: string }>();
        msg.respond(JSON.stringify({ id, err: { code: 'exploded', message: 'kaboom' }, isDisposed: true }));
      },
    });
    await nc.flush();
    try {
      const res = openapi.check('GET', '/v1/agents/misbehaving', await account.api.get('/v1/agents/misbehaving'));
      expect(res.status).toBe(500);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'internal_error', request_id: res.headers.get('x-request-id') });
      expect(res.text).not.toContain('kaboom');
    } finally {
      sub.unsubscribe();
      await nc.close();
    }
  });

  it('call-event ingest needs agents-service to check ownership → 503, nothing accepted', async () => {
    const res = await account.api.post('/v1/call-events', {
      id: 'evt-outage-1',
      type: 'call.started',
      conversation_id: 'conv-outage',
      agent_id: 'agent-x',
      occurred_at: '2025-01-31T14:05:00Z',
      data: { caller_number: '+14155550100', start_time: '2025-01-31T14:05:00Z' },
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
  });

  it('routes served by the other service keep working', async () => {
    expect((await account.api.get('/v1/conversations')).status).toBe(200);
  });

  it('every log line written while handling a request carries its request id', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('api-gateway', { write: (line: string) => void lines.push(JSON.parse(line)) });
    logger.level = 'debug';
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: system.natsUrl, namespace: system.namespace, logger });
    try {
      const client = apiClient(gateway.url, account.api_key);
      const firstRequestLine = lines.length;
      expect((await client.get('/v1/agents', { 'x-request-id': 'log-1' })).status).toBe(503);
      expect((await client.get('/v1/nowhere', { 'x-request-id': 'log-2' })).status).toBe(404);
      expect((await client.get('/v1/conversations', { 'x-request-id': 'log-3' })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const requestLines = lines.slice(firstRequestLine);
      expect(requestLines.length).toBeGreaterThanOrEqual(4);
      for (const line of requestLines) expect(['log-1', 'log-2', 'log-3']).toContain(line.request_id);
      // Written from deep inside the handler (the RPC client), not only by the access log.
      expect(requestLines).toContainEqual(expect.objectContaining({ request_id: 'log-1', subject: 'agents.list', level: 'warn', service: 'api-gateway' }));
      for (const id of ['log-1', 'log-2', 'log-3']) {
        expect(requestLines).toContainEqual(expect.objectContaining({ request_id: id, msg: 'request completed', time: expect.any(String) }));
      }
    } finally {
      await gateway.close();
    }
  });

  it('its own database unreachable → health 503 and API routes 503 service_unavailable, not 500', async () => {
    const upstream = new URL(system.databaseUrl);
    const proxy = await cuttableProxy(upstream.hostname, Number(upstream.port || 5432));
    const viaProxy = new URL(system.databaseUrl);
    viaProxy.port = String(proxy.port);
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: viaProxy.toString(), natsUrl: system.natsUrl, namespace: system.namespace, rpcTimeoutMs });
    try {
      const client = apiClient(gateway.url, account.api_key);
      expect((await client.get('/v1/conversations')).status).toBe(200);

      await proxy.cut();

      const started = Date.now();
      const res = await client.get('/v1/conversations');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'service_unavailable_error', code: 'service_unavailable', request_id: res.headers.get('x-request-id') });
      const health = await apiClient(gateway.url).get('/health');
      expect(health.status).toBe(503);
      expect(health.body.data.checks.database).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      await gateway.close();
      await proxy.cut();
    }
  }, 20_000);

  it('NATS unreachable → health 503 naming nats, and API routes 503 within the RPC timeout, not a hang', async () => {
    const upstream = new URL(system.natsUrl);
    const proxy = await cuttableProxy(upstream.hostname, Number(upstream.port || 4222));
    const gateway = await startGateway({
      port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: `nats://127.0.0.1:${proxy.port}`, namespace: system.namespace, rpcTimeoutMs,
    });
    try {
      const client = apiClient(gateway.url, account.api_key);
      expect((await client.get('/v1/conversations')).status).toBe(200);

      await proxy.cut();

      const started = Date.now();
      const health = await apiClient(gateway.url).get('/health');
      expect(health.status).toBe(503);
      expect(health.body.data.checks).toMatchObject({ database: 'ok', nats: 'unavailable' });
      const res = await client.get('/v1/conversations');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', request_id: res.headers.get('x-request-id') });
      expect(Date.now() - started).toBeLessThan(1000 + rpcTimeoutMs + 2000);
    } finally {
      await gateway.close();
      await proxy.cut();
    }
  }, 20_000);

  // Last: it breaks the gateway's own database on purpose.
  it('an unexpected failure → 500 internal_error with the request id and no internals', async () => {
    const db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
    try {
      await db.query('ALTER TABLE gateway.api_keys RENAME TO api_keys_gone');
    } finally {
      await db.end();
    }
    // The gateway trusts a key it has just looked up for a moment: wait until it looks again.
    await new Promise((r) => setTimeout(r, KEY_LOOKUP_TTL_MS + 100));
    const res = await account.api.get('/v1/conversations', { 'x-request-id': 'boom-1' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('boom-1');
    expect(res.body).toEqual({
      error: { type: 'api_error', code: 'internal_error', message: expect.any(String), request_id: 'boom-1' },
    });
    expect(res.text).not.toMatch(/api_keys|relation|QueryFailedError|\.ts:|\.js:/);
  });
});
