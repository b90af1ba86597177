import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { startGateway } from '../apps/api-gateway/src/app.js';
import { SCOPES } from '../apps/api-gateway/src/auth/scopes.js';
import { apiClient } from './support/http.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A GET with a Host header of our choosing (fetch always sends the URL's own host). */
function getWithHost(baseUrl: string, path: string, host: string, bearer: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET', headers: { host, authorization: `Bearer ${bearer}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The error envelope exactly: nothing but the documented fields, and the response's request id. */
function expectError(res: { status: number; headers: Headers; body: any }, status: number, expected: Record<string, unknown>) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(res.body.error).toMatchObject({ ...expected, request_id: requestId });
  expect(typeof res.body.error.message).toBe('string');
  const allowed = ['type', 'code', 'message', 'field', 'valid_values', 'limit', 'current', 'request_id'];
  expect(Object.keys(res.body.error).filter((k) => !allowed.includes(k))).toEqual([]);
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(js|ts):\d+/);
}

describe('api-gateway over HTTP', () => {
  let system: RunningSystem;
  let account: TestAccount;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ agent_limit: 10 });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  describe('envelopes for requests that never reach a handler', () => {
    it('unknown route → 404 route_not_found', async () => {
      expectError(await account.api.get('/v1/nothing-here'), 404, { type: 'not_found_error', code: 'route_not_found' });
      expectError(await system.anonymous.get('/v2/agents'), 404, { type: 'not_found_error', code: 'route_not_found' });
    });

    it('wrong method on a known path → 405 method_not_allowed with Allow', async () => {
      const res = await account.api.request('PUT', '/v1/agents', { body: {} });
      expectError(res, 405, { type: 'invalid_request', code: 'method_not_allowed' });
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      const onItem = await account.api.request('POST', '/v1/conversations/abc');
      expectError(onItem, 405, { code: 'method_not_allowed' });
      expect(onItem.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('malformed JSON → 400 invalid_json (type invalid_request)', async () => {
      const res = await account.api.request('POST', '/v1/agents', { rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
      expectError(res, 400, { type: 'invalid_request', code: 'invalid_json' });
    });

    it('a body over 1 MiB → 413 payload_too_large', async () => {
      const huge = JSON.stringify({ name: 'x', system_prompt: 'y'.repeat(1024 * 1024) });
      const res = await account.api.request('POST', '/v1/agents', { rawBody: huge, headers: { 'content-type': 'application/json' } });
      expectError(res, 413, { type: 'invalid_request', code: 'payload_too_large' });
    });

    it('a body just under 1 MiB is read (and judged by the service, not refused as too large)', async () => {
      const body = JSON.stringify({ name: 'big', voice_platform: 'platform_a', system_prompt: 'y'.repeat(1000 * 1000) });
      const res = await account.api.request('POST', '/v1/agents', { rawBody: body, headers: { 'content-type': 'application/json' } });
      expectError(res, 400, { code: 'invalid_parameter', field: 'system_prompt' });
    });

    it('a non-JSON content type on a body route → 415 unsupported_media_type', async () => {
      const res = await account.api.request('POST', '/v1/agents', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expectError(res, 415, { type: 'invalid_request', code: 'unsupported_media_type' });
      const text = await account.api.request('PATCH', '/v1/agents/abc', { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
      expectError(text, 415, { code: 'unsupported_media_type' });
    });
  });

  describe('input no store can hold is a precise client error, never a 5xx', () => {
    const agent = { name: 'Sane', voice_platform: 'platform_a' };

    it.each([
      ['a NUL in a string', { ...agent, name: 'nul\u0000x' }, 'name'],
      ['a NUL in a metadata value', { ...agent, metadata: { team: 'a\u0000b' } }, 'metadata.team'],
      ['a lone surrogate in system_prompt', { ...agent, system_prompt: 'lone \ud800' }, 'system_prompt'],
      ['a lone surrogate in a schedule item', { ...agent, business_hours: { timezone: 'UTC', schedule: [{ day: 'monday', open: '\udc00', close: '17:00' }] } }, 'business_hours.schedule[0].open'],
    ])('%s → 400 invalid_parameter naming the field', async (_label, body, field) => {
      // JSON.stringify writes NUL and lone surrogates as \u escapes, exactly as a client's JSON encoder would.
      const res = await account.api.post('/v1/agents', body);
      expectError(res, 400, { type: 'invalid_request', code: 'invalid_parameter', field });
    });

    it('in a query parameter → 400 naming it; in a path id → 404 like any unknown id', async () => {
      expectError(await account.api.get('/v1/agents?search=a%00b'), 400, { code: 'invalid_parameter', field: 'search' });
      expectError(await account.api.get('/v1/conversations?outcome=%00'), 400, { code: 'invalid_parameter', field: 'outcome' });
      expectError(await account.api.get('/v1/agents/agt_%00'), 404, { code: 'not_found' });
      expectError(await account.api.get('/v1/conversations/%00/transcript'), 404, { code: 'not_found' });
      expectError(await account.api.request('DELETE', '/v1/api-keys/%00'), 404, { code: 'not_found' });
    });

    it('nesting deeper than 32 levels → 400 invalid_request, however deep (no stack overflow, no false 503)', async () => {
      for (const depth of [40, 6000]) {
        const rawBody = `{"name":"Deep","voice_platform":"platform_a","metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
        const res = await account.api.request('POST', '/v1/agents', { rawBody, headers: { 'content-type': 'application/json' } });
        expectError(res, 400, { type: 'invalid_request', code: 'invalid_request' });
        expect(res.body.error.field).toMatch(/^metadata(\.a)+$/);
      }
      expect((await system.anonymous.get('/health')).status).toBe(200);
    });

    it('valid JSON that is not an object → 400 invalid_request saying so (not "invalid JSON")', async () => {
      for (const rawBody of ['null', '"text"', '42']) {
        const res = await account.api.request('POST', '/v1/agents', { rawBody, headers: { 'content-type': 'application/json' } });
        expectError(res, 400, { code: 'invalid_request' });
        expect(res.body.error.message).toBe('The request body must be a JSON object.');
      }
    });

    it('a body that claims gzip but is not → 400 invalid_request', async () => {
      const res = await account.api.request('POST', '/v1/agents', {
        rawBody: JSON.stringify(agent),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expectError(res, 400, { code: 'invalid_request' });
    });

    it('a body under 1 MiB that no longer fits the bus once wrapped → 413, never a false 503', async () => {
      const filler = 1024 * 1024 - 120;
      const rawBody = JSON.stringify({ name: 'big', voice_platform: 'platform_a', system_prompt: 'y'.repeat(filler) });
      expect(Buffer.byteLength(rawBody)).toBeLessThanOrEqual(1024 * 1024);
      const res = await account.api.request('POST', '/v1/agents', { rawBody, headers: { 'content-type': 'application/json' } });
      expectError(res, 413, { code: 'payload_too_large' });
    });

    it('a request Node’s HTTP parser refuses (unknown method) still gets the envelope and a request id', async () => {
      const { hostname, port } = new URL(system.baseUrl);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => socket.write(`FOO /v1/agents HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/content-type: application\/json/i);
      const requestId = /x-request-id: (\S+)/i.exec(head)?.[1];
      expect(requestId).toMatch(UUID);
      expect(JSON.parse(body)).toEqual({ error: { type: 'invalid_request', code: 'invalid_request', message: expect.any(String), request_id: requestId } });
    });
  });

  describe('authentication and scopes', () => {
    it('no Authorization → 401 authentication_required with WWW-Authenticate', async () => {
      const res = await system.anonymous.get('/v1/agents');
      expectError(res, 401, { type: 'authentication_error', code: 'authentication_required' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it.each([
      ['an unknown key', `vk_${'A'.repeat(40)}`],
      ['a malformed key', 'not-a-key'],
    ])('%s → 401 invalid_api_key', async (_label, key) => {
      const res = await system.client(key).get('/v1/conversations');
      expectError(res, 401, { type: 'authentication_error', code: 'invalid_api_key' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('a non-Bearer scheme → 401 invalid_api_key', async () => {
      const res = await system.anonymous.get('/v1/agents', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
      expectError(res, 401, { code: 'invalid_api_key' });
    });

    it('a key without the route scope → 403 insufficient_permissions naming the scope', async () => {
      const created = await account.api.post('/v1/api-keys', { scopes: ['conversations:read'], name: 'reader' });
      expect(created.status).toBe(201);
      const reader = system.client(created.body.data.api_key);
      const res = await reader.post('/v1/agents', { name: 'Nope', voice_platform: 'platform_a' });
      expectError(res, 403, { type: 'permission_error', code: 'insufficient_permissions' });
      expect(res.body.error.message).toContain('agents:write');
      expectError(await reader.get('/v1/agents'), 403, { code: 'insufficient_permissions' });
      expectError(await reader.get('/v1/api-keys'), 403, { code: 'insufficient_permissions' });
      expect((await reader.get('/v1/conversations')).status).toBe(200);
    });

    it('takes the account from the key: another account sees none of this account’s agents', async () => {
      const other = await system.createAccount();
      const mine = await account.api.post('/v1/agents', { name: 'Private agent', voice_platform: 'platform_a' });
      expect(mine.status).toBe(201);
      expectError(await other.api.get(`/v1/agents/${mine.body.data.id}`), 404, { code: 'not_found' });
      const list = await other.api.get('/v1/agents');
      expect(list.body.data).toEqual([]);
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, with only the asked scopes', async () => {
      const res = await account.api.post('/v1/api-keys', { scopes: ['agents:read', 'agents:write'], name: 'ci' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ name: 'ci', scopes: ['agents:read', 'agents:write'] });
      expect(res.body.data.id).toMatch(/^key_[0-9a-f]{24}$/);
      expect(res.body.data.api_key).toMatch(/^vk_[A-Za-z0-9]{40}$/);
      expect(res.body.data.created_at).toMatch(ISO);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
      const key = system.client(res.body.data.api_key);
      expect((await key.get('/v1/agents')).status).toBe(200);
      expectError(await key.get('/v1/conversations'), 403, { code: 'insufficient_permissions' });
    });

    it('refuses unknown scopes with valid_values, and scopes beyond the caller’s own', async () => {
      const unknown = await account.api.post('/v1/api-keys', { scopes: ['agents:read', 'root'] });
      expectError(unknown, 400, { code: 'invalid_parameter', field: 'scopes' });
      expect(unknown.body.error.valid_values).toEqual([...SCOPES]);
      expect(unknown.body.error.valid_values).toEqual(expect.arrayContaining(['agents:read', 'webhooks:write', 'audit:read']));
      expectError(await account.api.post('/v1/api-keys', {}), 400, { code: 'missing_required_field', field: 'scopes' });
      expectError(await account.api.post('/v1/api-keys', { scopes: ['agents:read'], secret: 'x' }), 400, { code: 'invalid_parameter', field: 'secret' });
      expectError(await account.api.post('/v1/api-keys', { scopes: ['agents:read'], name: null }), 400, { code: 'invalid_parameter', field: 'name' });
      expectError(await account.api.post('/v1/api-keys', { scopes: ['agents:read'], name: 7 }), 400, { code: 'invalid_parameter', field: 'name' });

      const limited = await account.api.post('/v1/api-keys', { scopes: ['api_keys:write', 'agents:read'] });
      const limitedClient = system.client(limited.body.data.api_key);
      const escalate = await limitedClient.post('/v1/api-keys', { scopes: ['agents:read', 'agents:write'] });
      expectError(escalate, 403, { type: 'permission_error', code: 'insufficient_permissions', field: 'scopes' });
      expect(escalate.body.error.message).toContain('agents:write');
      const subset = await limitedClient.post('/v1/api-keys', { scopes: ['agents:read'] });
      expect(subset.status).toBe(201);
    });

    it('lists the account’s keys without secrets or hashes', async () => {
      const created = await account.api.post('/v1/api-keys', { scopes: ['agents:read'], name: 'listed' });
      const res = await account.api.get('/v1/api-keys?per_page=100');
      expect(res.status).toBe(200);
      const listed = res.body.data.find((k: any) => k.id === created.body.data.id);
      expect(listed).toMatchObject({ name: 'listed', scopes: ['agents:read'], revoked_at: null });
      expect(created.body.data.api_key.startsWith(listed.prefix)).toBe(true);
      expect(res.text).not.toContain(created.body.data.api_key);
      expect(res.text).not.toContain(account.api_key);
      for (const key of res.body.data) expect(Object.keys(key).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes']);
      expect(res.body.meta).toMatchObject({ page: 1, per_page: 100, total: res.body.data.length, total_pages: 1 });
      expect(res.body.links.prev).toBeNull();
    });

    it('refuses unknown query parameters like every other list', async () => {
      const res = await account.api.get('/v1/api-keys?per_page=10&stauts=active');
      expectError(res, 400, { code: 'invalid_parameter', field: 'stauts', valid_values: ['page', 'per_page'] });
    });

    it('revokes at once; another account’s key is not found; a key may revoke itself', async () => {
      const created = await account.api.post('/v1/api-keys', { scopes: ['agents:read', 'api_keys:write'] });
      const key = system.client(created.body.data.api_key);
      expect((await key.get('/v1/agents')).status).toBe(200);

      const other = await system.createAccount();
      expectError(await other.api.delete(`/v1/api-keys/${created.body.data.id}`), 404, { code: 'not_found' });
      expectError(await account.api.delete('/v1/api-keys/not-a-key-id'), 404, { code: 'not_found' });
      expectError(await account.api.delete(`/v1/api-keys/key_${'0'.repeat(24)}`), 404, { code: 'not_found' });
      expect((await key.get('/v1/agents')).status).toBe(200);

      const revoked = await key.delete(`/v1/api-keys/${created.body.data.id}`);
      expect(revoked.status).toBe(204);
      expect(revoked.text).toBe('');
      expectError(await key.get('/v1/agents'), 401, { code: 'invalid_api_key' });

      const listed = (await account.api.get('/v1/api-keys?per_page=100')).body.data.find((k: any) => k.id === created.body.data.id);
      expect(listed.revoked_at).toMatch(ISO);
    });

    it('a key can only revoke keys whose scopes it holds: a narrow key cannot lock the account out', async () => {
      const owner = await system.createAccount();
      const keys = (await owner.api.get('/v1/api-keys')).body.data;
      const bootstrap = keys[0];
      const narrow = system.client((await owner.api.post('/v1/api-keys', { scopes: ['api_keys:write'] })).body.data.api_key);
      const beyond = await narrow.delete(`/v1/api-keys/${bootstrap.id}`);
      expectError(beyond, 403, { type: 'permission_error', code: 'insufficient_permissions' });
      expect(beyond.body.error.message).toContain('agents:write');
      expect((await owner.api.get('/v1/agents')).status).toBe(200);
      const peer = await owner.api.post('/v1/api-keys', { scopes: ['api_keys:write'] });
      expect((await narrow.delete(`/v1/api-keys/${peer.body.data.id}`)).status).toBe(204);
    });

    it('stores only a hash: the secret appears in no column of the keys table', async () => {
      const created = await account.api.post('/v1/api-keys', { scopes: ['agents:read'], name: 'hashed' });
      const secret: string = created.body.data.api_key;
      const db = new pg.Client({ connectionString: system.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query(`SELECT row_to_json(k)::text AS row FROM gateway.api_keys k WHERE id = $1`, [created.body.data.id]);
        expect(rows).toHaveLength(1);
        expect(rows[0].row).not.toContain(secret);
        expect(rows[0].row).not.toContain(secret.slice(12));
        const { rows: everywhere } = await db.query(`SELECT count(*)::int AS n FROM gateway.api_keys k WHERE row_to_json(k)::text LIKE '%' || $1 || '%'`, [secret.slice(-20)]);
        expect(everywhere[0].n).toBe(0);
      } finally {
        await db.end();
      }
    });
  });

  describe('admin bootstrap', () => {
    it('creates an account with an all-scopes key', async () => {
      const admin = system.client(system.adminToken);
      const res = await admin.post('/v1/admin/accounts', { name: 'Bootstrap Co', plan: 'growth', agent_limit: 3, voice_platforms: ['platform_b'] });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(['agent_limit', 'api_key', 'created_at', 'id', 'name', 'plan', 'voice_platforms']);
      expect(res.body.data).toMatchObject({ name: 'Bootstrap Co', plan: 'growth', agent_limit: 3, voice_platforms: ['platform_b'] });
      expect(res.body.data.id).toMatch(/^acct_[0-9a-f]{24}$/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const key = system.client(res.body.data.api_key);
      for (const path of ['/v1/agents', '/v1/conversations', '/v1/api-keys']) expect((await key.get(path)).status).toBe(200);
    });

    it('entitles an account to both platforms when voice_platforms is omitted', async () => {
      const admin = system.client(system.adminToken);
      const res = await admin.post('/v1/admin/accounts', { name: 'Default Co', plan: 'growth', agent_limit: 3 });
      expect(res.status).toBe(201);
      expect(res.body.data.voice_platforms).toEqual(['platform_a', 'platform_b']);
      // Entitled is not configured: an agent still needs the platform's integration.
      const key = system.client(res.body.data.api_key);
      const agent = await key.post('/v1/agents', { name: 'Too early', voice_platform: 'platform_b' });
      expect([agent.status, agent.body.error.code, agent.body.error.field]).toEqual([422, 'platform_not_configured', 'voice_platform']);
      expect((await key.put('/v1/integrations/platform_b', system.platforms.integrationBody('platform_b'))).status).toBe(200);
      expect((await key.post('/v1/agents', { name: 'Now', voice_platform: 'platform_b' })).status).toBe(201);
    });

    it('validates the body with precise fields', async () => {
      const admin = system.client(system.adminToken);
      const base = { name: 'X', plan: 'starter', agent_limit: 1, voice_platforms: ['platform_a'] };
      expectError(await admin.post('/v1/admin/accounts', { ...base, name: undefined }), 400, { code: 'missing_required_field', field: 'name' });
      expectError(await admin.post('/v1/admin/accounts', { ...base, agent_limit: -1 }), 400, { code: 'invalid_parameter', field: 'agent_limit' });
      const platforms = await admin.post('/v1/admin/accounts', { ...base, voice_platforms: ['platform_z'] });
      expectError(platforms, 400, { code: 'invalid_parameter', field: 'voice_platforms', valid_values: ['platform_a', 'platform_b'] });
    });

    it('refuses a wrong or missing admin token, and API keys', async () => {
      const body = { name: 'X', plan: 'starter', agent_limit: 1, voice_platforms: ['platform_a'] };
      expectError(await system.client('wrong-token').post('/v1/admin/accounts', body), 401, { code: 'invalid_api_key' });
      expectError(await system.anonymous.post('/v1/admin/accounts', body), 401, { code: 'authentication_required' });
      expectError(await account.api.post('/v1/admin/accounts', body), 401, { code: 'invalid_api_key' });
    });

    it('does not exist when no admin token is configured', async () => {
      const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: system.natsUrl, namespace: system.namespace });
      try {
        const client = apiClient(gateway.url, system.adminToken);
        const res = await client.post('/v1/admin/accounts', { name: 'X', plan: 'starter', agent_limit: 1, voice_platforms: ['platform_a'] });
        expectError(res, 404, { code: 'route_not_found' });
        // The rest of the gateway works as usual.
        expect((await apiClient(gateway.url, account.api_key).get('/v1/agents')).status).toBe(200);
      } finally {
        await gateway.close();
      }
    });
  });

  describe('pagination links', () => {
    const links = (body: any) => [body.links.first, body.links.prev, body.links.next, body.links.last].filter((l) => l !== null);

    it('are rooted at PUBLIC_URL when it is configured, whatever Host the client sends', async () => {
      const gateway = await startGateway({
        port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: system.natsUrl, namespace: system.namespace,
        publicUrl: 'https://api.example.com/',
      });
      try {
        for (const host of ['evil.example', 'evil.example/phish?x=']) {
          const res = await getWithHost(gateway.url, '/v1/api-keys?per_page=1', host, account.api_key);
          expect(res.status).toBe(200);
          expect(links(res.body).length).toBeGreaterThan(0);
          for (const link of links(res.body)) {
            expect(link).not.toContain('evil.example');
            expect(link.startsWith('https://api.example.com/v1/api-keys?')).toBe(true);
          }
        }
      } finally {
        await gateway.close();
      }
    });

    it('without PUBLIC_URL follow a plain Host, but never reflect a malformed one', async () => {
      const plain = await getWithHost(system.baseUrl, '/v1/api-keys?per_page=1', 'proxy.example:8443', account.api_key);
      expect(plain.status).toBe(200);
      expect(plain.body.links.first).toBe('http://proxy.example:8443/v1/api-keys?per_page=1&page=1');

      for (const host of ['evil.example/phish?x=', 'user@evil.example', 'evil.example#x']) {
        const res = await getWithHost(system.baseUrl, '/v1/api-keys?per_page=1', host, account.api_key);
        expect(res.status).toBe(200);
        for (const link of links(res.body)) {
          expect(link).not.toContain('evil.example');
          expect(link.startsWith(`${system.baseUrl}/v1/api-keys?`)).toBe(true);
        }
      }
    });
  });

  describe('request ids', () => {
    it('honours a client X-Request-Id in the header, meta and error envelopes', async () => {
      const ok = await account.api.get('/v1/agents', { 'x-request-id': 'client-req-42' });
      expect(ok.headers.get('x-request-id')).toBe('client-req-42');
      expect(ok.body.meta.request_id).toBe('client-req-42');
      const notFound = await account.api.get('/v1/nowhere', { 'x-request-id': 'client-req-43' });
      expect(notFound.body.error.request_id).toBe('client-req-43');
    });

    it('generates a UUID when absent or unsafe', async () => {
      const res = await account.api.get('/v1/agents');
      expect(res.headers.get('x-request-id')).toMatch(UUID);
      expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
      const unsafe = await account.api.get('/v1/agents', { 'x-request-id': 'a b <c>' });
      expect(unsafe.headers.get('x-request-id')).toMatch(UUID);
    });

    it('reaches the service: the agent event it stores carries the request id sent over HTTP', async () => {
      const res = await account.api.post('/v1/agents', { name: 'Traced agent', voice_platform: 'platform_a' }, { 'x-request-id': 'trace-into-agents' });
      expect(res.status).toBe(201);
      const db = new pg.Client({ connectionString: system.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query(`SELECT stream_id, type, metadata FROM agents.events WHERE stream_id LIKE '%' || $1 ORDER BY global_position`, [
          res.body.data.id,
        ]);
        const agentId = res.body.data.id;
        expect(rows[0]).toEqual({
          stream_id: `agent-${agentId}`,
          type: 'AgentCreated',
          metadata: {
            request_id: 'trace-into-agents',
            correlation_id: 'trace-into-agents',
            causation_id: expect.stringMatching(/^cmd_[0-9a-f-]{36}$/),
            account_id: account.id,
            command: 'CreateAgent',
            // Who sent it, for the audit log: the key's id (never its secret) and the client's address.
            actor_key_id: expect.stringMatching(/^key_[0-9a-f]{24}$/),
            client_address: expect.stringMatching(/127\.0\.0\.1$/),
          },
        });
        // The platform sync the create ran before answering (its own stream, and the number the platform sold) traces back to the request too.
        expect(rows.map((r) => r.type)).toEqual(expect.arrayContaining(['AgentPhoneNumberAssigned', 'AgentPlatformSyncProgressed', 'AgentSyncedToPlatform']));
        for (const row of rows) expect(row.metadata).toMatchObject({ request_id: 'trace-into-agents', correlation_id: 'trace-into-agents' });
      } finally {
        await db.end();
      }
    });

    it('round-trips through a service: a service error carries the caller’s request id', async () => {
      const res = await account.api.post('/v1/agents', { voice_platform: 'platform_a' }, { 'x-request-id': 'via-agents-service' });
      expectError(res, 400, { code: 'missing_required_field', field: 'name', request_id: 'via-agents-service' });
    });
  });

  describe('health', () => {
    it('is 200 with every check ok when everything answers, without auth', async () => {
      const res = await system.anonymous.get('/health');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        status: 'ok',
        checks: { database: 'ok', nats: 'ok', agents_service: 'ok', conversations_service: 'ok', notifications_service: 'ok' },
      });
      expect(res.body.meta.timestamp).toMatch(ISO);
    });
  });
});
