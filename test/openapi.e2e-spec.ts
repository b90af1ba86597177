import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startGateway } from '../apps/api-gateway/src/app.js';
import { SCOPES } from '../apps/api-gateway/src/auth/scopes.js';
import { gatewayControllers } from '../apps/api-gateway/src/gateway.module.js';
import { AGENT_EXAMPLE } from '../apps/api-gateway/src/openapi/examples.js';
import { documentationGaps } from '../apps/api-gateway/src/openapi/openapi-document.js';
import { standaloneOpenApiDocument } from '../apps/api-gateway/src/openapi/standalone-document.js';
import { checkStreamOpens } from './support/event-stream.js';
import { apiClient, type ApiClient, type ApiResponse } from './support/http.js';
import { deleteNamespaceStreams, randomNamespace } from './support/nats.js';
import { checkedClient, checkedSystem, loadOpenApi, openApiValidator, type CheckedSystem, type Operation, type OpenApiValidator } from './support/openapi.js';
import { configureIntegrations } from './support/platforms.js';
import { startLocalSystem, startSystem, type LocalSystem, type TestAccount } from './support/system.js';
import { pollUntil } from './support/poll.js';
import { DEFAULT_API_KEY, signPlatformAWebhook, signPlatformBWebhook, startSimulators } from '@voice/platform-simulators';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

function completedCall(conversationId: string, agentId: string) {
  return [
    { id: `${conversationId}-1`, type: 'call.started', conversation_id: conversationId, agent_id: agentId, occurred_at: at(0),
      data: { caller_number: '+14155550100', start_time: at(0) } },
    { id: `${conversationId}-2`, type: 'call.transcript', conversation_id: conversationId, agent_id: agentId, occurred_at: at(20),
      data: { segments: [
        { speaker: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 2500 },
        { speaker: 'caller', text: 'I need to book a table.', start_ms: 3000, end_ms: 5200 },
      ] } },
    { id: `${conversationId}-3`, type: 'call.ended', conversation_id: conversationId, agent_id: agentId, occurred_at: at(65),
      data: { end_time: at(65), duration: 65, summary: 'Booked a table.', sentiment: 'positive', outcome: 'appointment_booked', topics: ['booking'],
        satisfaction: { score: 5 }, quality: { mos: 4.2 }, follow_up_tasks: [{ description: 'Send confirmation' }],
        integrations: [{ system: 'crm', action: 'crm_updated' }], errors: [{ code: 'jitter', message: 'brief jitter' }] } },
  ];
}

/** The signature headers of a platform's webhook over exactly the bytes the test client sends (JSON.stringify of the body). */
const signed = (platform: string, body: unknown, secret: string): Record<string, string> =>
  platform === 'platform_a' ? signPlatformAWebhook(JSON.stringify(body), secret) : signPlatformBWebhook(JSON.stringify(body), secret);

/** A platform webhook body naming a call of the given platform agent (the platforms' shapes, platforms.md). */
function webhookBody(platform: string, platformAgentId: string, callId: string) {
  const now = Date.now();
  return platform === 'platform_a'
    ? { event: 'call_ended', call: { call_id: callId, agent_id: platformAgentId, from_number: '+14155550100', start_timestamp: now - 60_000, end_timestamp: now, duration_ms: 60_000, disconnection_reason: 'dial_busy', transcript_object: [] } }
    : { message: { type: 'status-update', status: 'ended', endedReason: 'customer-busy', timestamp: now, call: { id: callId, assistantId: platformAgentId, type: 'inboundPhoneCall', customer: { number: '+14155550100' } } } };
}

const eventually = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> => pollUntil(probe, accept, timeoutMs);

/** A concrete URL for a path template (any id: the access check runs before the handler looks at it). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'x');
const nameOf = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;

/** The named request-body examples the document shows for an operation, as [name, value] pairs. */
const requestExamples = (op: Operation): Array<[string, any]> =>
  Object.entries<any>(op.spec.requestBody?.content?.['application/json']?.examples ?? {}).map(([name, example]) => [name, example.value]);

/** A document example, re-pointed from the example agent to a real one of the calling account. */
const forAgent = <T>(value: T, agentId: string): T => JSON.parse(JSON.stringify(value).replaceAll(AGENT_EXAMPLE.id, agentId));

/**
 * Which documented operations the responses checked so far covered: with a success, and with a client error
 * (for the operations that document one). Each entry names an operation that was NOT covered.
 */
function uncovered(oa: OpenApiValidator): { success: string[]; clientError: string[] } {
  const covered = (accept: (status: number) => boolean) => new Set(oa.checked.filter((c) => accept(c.status)).map(nameOf));
  const success = covered((status) => status < 300);
  const clientError = covered((status) => status >= 400 && status < 500);
  const documents4xx = (op: Operation) => Object.keys(op.spec.responses).some((status) => /^4\d\d$/.test(status));
  return {
    success: oa.operations.map(nameOf).filter((name) => !success.has(name)),
    clientError: oa.operations.filter(documents4xx).map(nameOf).filter((name) => !clientError.has(name)),
  };
}

describe('OpenAPI document and docs page', () => {
  let system: CheckedSystem;
  let account: TestAccount;
  let oa: OpenApiValidator;
  /** Every client of `system` checks each response against the document (support/openapi.ts checkedSystem). */
  const call = (client: ApiClient, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<any>> =>
    client.request(method, path, { body, headers });

  beforeAll(async () => {
    system = await checkedSystem(await startSystem());
    oa = system.openapi;
    account = await system.createAccount({ agent_limit: 10 });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  }, 30_000);

  describe('the document', () => {
    it('is served raw (no envelope) as OpenAPI 3.1 without authentication, and every schema compiles under Ajv 2020 strict mode', async () => {
      const res = await call(system.anonymous, 'GET', '/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toBe('3.1.0');
      expect(res.body.data).toBeUndefined();
      expect(res.body.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(res.body.components.securitySchemes.api_key.bearerFormat).not.toBe('JWT');
      expect(JSON.stringify(res.body)).not.toContain('"nullable"');
      expect(() => oa.compileAll()).not.toThrow();
    });

    it('is the document the unit tests check (built from the same controllers without any server)', async () => {
      expect(oa.document).toEqual(await standaloneOpenApiDocument({ adminToken: 'configured' }));
    });

    it('has an example for every component, parameter, request body and success body, each satisfying its own schema', () => {
      expect(oa.missingExamples()).toEqual([]);
      expect(oa.invalidExamples()).toEqual([]);
    });

    it('gives every operation exactly one tag, declared with a description at the top level (the docs page lists it once)', () => {
      const declared = new Set(oa.document.tags.filter((t: any) => t.description).map((t: any) => t.name));
      for (const op of oa.operations) expect([nameOf(op), op.spec.tags.length, declared.has(op.spec.tags[0])]).toEqual([nameOf(op), 1, true]);
    });

    it('is a valid OpenAPI 3.1 document by the official 3.1 schema', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(oa.document));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it('documents exactly the routes the gateway serves, each with a summary, a success response and its access rule', () => {
      // The route table the gateway's HTTP pipeline enforces (anything outside it is 404 route_not_found) against the served document.
      expect(documentationGaps(oa.document, gatewayControllers({ adminToken: 'configured', rpcTimeoutMs: 1000 }))).toEqual({ undocumented: [], unserved: [] });
      expect(oa.operations.length).toBeGreaterThanOrEqual(17);
      for (const op of oa.operations) {
        const name = `${op.method} ${op.path}`;
        expect([name, typeof op.spec.summary]).toEqual([name, 'string']);
        expect([name, Object.keys(op.spec.responses).some((s) => /^2\d\d$/.test(s))]).toEqual([name, true]);
        expect([name, Array.isArray(op.spec.security)]).toEqual([name, true]);
        if (op.spec.security.length > 0) {
          const scope = op.spec['x-required-scope'];
          expect([name, scope === 'admin' || (SCOPES as readonly string[]).includes(scope)]).toEqual([name, true]);
          expect(op.spec.description).toContain(scope === 'admin' ? 'ADMIN_TOKEN' : scope);
          expect(Object.keys(op.spec.responses)).toEqual(expect.arrayContaining(['401', '500', '503']));
        }
      }
    });

    it('lists every query filter of the list endpoints with its enum values', () => {
      const params = (path: string) =>
        Object.fromEntries(oa.operationFor('GET', path).spec.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]));
      const conversations = params('/v1/conversations');
      expect(Object.keys(conversations).sort()).toEqual(
        ['page', 'per_page', 'agent_id', 'status', 'sentiment', 'outcome', 'caller', 'min_duration', 'max_duration', 'min_cost', 'max_cost', 'start_date', 'end_date',
          'has_recording', 'has_transcript', 'search', 'topic', 'sort_by', 'sort_order'].sort(),
      );
      expect(conversations.status.enum).toEqual(['in_progress', 'completed', 'failed', 'abandoned']);
      expect(conversations.sentiment.enum).toEqual(['positive', 'neutral', 'negative']);
      expect(conversations.sort_by.enum).toEqual(['start_time', 'duration', 'sentiment']);
      expect(conversations.start_date.format).toBe('date-time');
      // The stats take the list's filters (not its paging or sorting) and a timeline bucket.
      const stats = params('/v1/conversations/stats');
      expect(Object.keys(stats).sort()).toEqual(
        [...Object.keys(conversations).filter((name) => !['page', 'per_page', 'sort_by', 'sort_order'].includes(name)), 'bucket'].sort(),
      );
      expect(stats.status).toEqual(conversations.status);
      expect(stats.bucket.enum).toEqual(['hour', 'day']);
      expect(Object.keys(params('/v1/agents')).sort()).toEqual(['page', 'per_page', 'search', 'status', 'voice_platform']);
      expect(Object.keys(params('/v1/conversations/x/transcript'))).toEqual(['format']);
    });

    it('is not documented, nor served, without an admin token: the admin route disappears from both', async () => {
      const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: system.natsUrl, namespace: system.namespace });
      try {
        const doc = await loadOpenApi(gateway.url);
        expect(doc.document.paths['/v1/admin/accounts']).toBeUndefined();
        expect(doc.document.paths['/v1/agents']).toBeDefined();
        const res = await fetch(`${gateway.url}/v1/admin/accounts`, { method: 'POST' });
        expect(res.status).toBe(404);
      } finally {
        await gateway.close();
      }
    });

    it('the validator itself rejects a response the document does not describe', async () => {
      const res = await account.api.get('/v1/agents');
      const tampered = { ...res, text: JSON.stringify({ ...res.body, data: [{ id: 1 }] }) };
      expect(() => oa.check('GET', '/v1/agents', tampered)).toThrow(/body does not match/);
      expect(() => oa.check('GET', '/v1/agents', { ...res, status: 418 })).toThrow(/not documented/);
      const noHeader = { ...res, headers: new Headers({ 'content-type': 'application/json' }) };
      expect(() => oa.check('GET', '/v1/agents', noHeader)).toThrow(/X-Request-Id is missing/);
      const tamperedDoc = structuredClone(oa.document);
      tamperedDoc.components.schemas.Agent.examples[0].status = 'sleeping';
      expect(openApiValidator(tamperedDoc).invalidExamples()).toEqual([expect.stringContaining('components.schemas.Agent.examples[0]')]);
      // A checked client refuses a response the document does not describe, before the test sees it.
      delete tamperedDoc.paths['/health'].get.responses['200'];
      await expect(checkedClient(apiClient(system.baseUrl), openApiValidator(tamperedDoc)).get('/health')).rejects.toThrow(/status 200 is not documented/);
    });
  });

  describe('real responses match the document', () => {
    it('health', async () => {
      const res = await call(system.anonymous, 'GET', '/health');
      expect(res.status).toBe(200);
    });

    it('agents: create 201, list, get, patch, delete 204 and their typical errors', async () => {
      const created = await call(account.api, 'POST', '/v1/agents', {
        name: 'Front desk', voice_platform: 'platform_a', language: 'en', welcome_message: 'Hello',
        business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] }, metadata: { team: 'a' },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect(created.headers.get('location')).toBe(`/v1/agents/${id}`);

      expect((await call(account.api, 'POST', '/v1/agents', { name: 'Minimal', voice_platform: 'platform_b' })).status).toBe(201);
      expect((await call(account.api, 'GET', '/v1/agents?per_page=1&status=active')).status).toBe(200);
      expect((await call(account.api, 'GET', `/v1/agents/${id}`)).status).toBe(200);
      // A number bought on the platform is the agent's second event: the ETag says which version to match.
      const etag = created.headers.get('etag')!;
      expect(etag).toBe('"2"');
      const patched = await call(account.api, 'PATCH', `/v1/agents/${id}`, { status: 'paused', system_prompt: null }, { 'if-match': etag });
      expect(patched.status).toBe(200);
      expect(patched.headers.get('etag')).toBe('"3"');

      expect((await call(account.api, 'POST', '/v1/agents', { voice_platform: 'platform_a' })).body.error.code).toBe('missing_required_field');
      expect((await call(account.api, 'POST', '/v1/agents', { name: 'X', voice_platform: 'nope' })).body.error.code).toBe('invalid_parameter');
      expect((await call(account.api, 'POST', '/v1/agents', { name: 'Front desk', voice_platform: 'platform_a' })).body.error.code).toBe('duplicate_name');
      expect((await call(account.api, 'GET', '/v1/agents?status=gone')).body.error.code).toBe('invalid_parameter');
      expect((await call(account.api, 'GET', '/v1/agents/agt_unknown')).status).toBe(404);
      expect((await call(account.api, 'PATCH', `/v1/agents/${id}`, { name: 'Y' }, { 'if-match': '"1"' })).status).toBe(412);
      expect((await call(account.api, 'PATCH', `/v1/agents/${id}`, { name: 'Y' }, { 'if-match': 'W/"2"' })).body.error.code).toBe('precondition_failed');
      expect((await call(account.api, 'PATCH', `/v1/agents/${id}`, { name: 'Y' }, { 'if-match': 'garbage' })).body.error).toMatchObject({ code: 'invalid_request', field: 'If-Match' });
      expect((await call(account.api, 'DELETE', `/v1/agents/${id}`)).status).toBe(204);
      expect((await call(account.api, 'DELETE', `/v1/agents/${id}`)).status).toBe(404);

      const small = await system.createAccount({ agent_limit: 1, voice_platforms: ['platform_a'] });
      expect((await call(small.api, 'POST', '/v1/agents', { name: 'Only', voice_platform: 'platform_a' })).status).toBe(201);
      const quota = await call(small.api, 'POST', '/v1/agents', { name: 'Second', voice_platform: 'platform_a' });
      expect(quota.body.error).toMatchObject({ code: 'quota_exceeded', limit: 1, current: 1 });
      expect((await call(small.api, 'POST', '/v1/agents', { name: 'Other', voice_platform: 'platform_b' })).status).toBe(422);
    }, 30_000);

    it('call events, conversations and transcripts in every format', async () => {
      const agent = await call(account.api, 'POST', '/v1/agents', { name: 'Bookings', voice_platform: 'platform_a' });
      const agentId = agent.body.data.id;
      expect((await call(account.api, 'POST', '/v1/call-events', { events: completedCall('oa-call-1', agentId) })).status).toBe(202);
      const single = completedCall('oa-call-2', agentId)[0];
      expect((await call(account.api, 'POST', '/v1/call-events', single)).status).toBe(202);

      const bad = await call(account.api, 'POST', '/v1/call-events', { events: [{ ...single, id: 'x', data: { caller_number: 'nope', start_time: at(0) } }] });
      expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', field: 'events[0].data.caller_number' });
      expect((await call(account.api, 'POST', '/v1/call-events', { ...single, id: 'y', agent_id: 'agt_other' })).body.error.code).toBe('unknown_agent');
      expect((await call(account.api, 'POST', '/v1/call-events', [])).status).toBe(400);

      const detail = await eventually(
        () => account.api.get('/v1/conversations/oa-call-1'),
        (r) => r.status === 200 && r.body.data.status === 'completed' && r.body.data.has_transcript,
      );
      expect(detail.status).toBe(200);
      expect((await call(account.api, 'GET', '/v1/conversations/oa-call-1')).body.data.content.transcript).toHaveLength(2);
      await eventually(() => account.api.get('/v1/conversations/oa-call-2'), (r) => r.status === 200);

      const list = await call(account.api, 'GET', '/v1/conversations?per_page=1&sort_by=duration&sort_order=asc&has_transcript=true');
      expect(list.status).toBe(200);
      expect(list.body.links.next).toBeNull();
      expect((await call(account.api, 'GET', '/v1/conversations?status=completed&sentiment=positive&start_date=2025-01-01T00:00:00Z')).status).toBe(200);
      expect((await call(account.api, 'GET', '/v1/conversations?sentiment=happy')).body.error.valid_values).toEqual(['positive', 'neutral', 'negative']);
      expect((await call(account.api, 'GET', '/v1/conversations?start_date=yesterday')).body.error.code).toBe('invalid_date_format');
      expect((await call(account.api, 'GET', '/v1/conversations/nope')).status).toBe(404);
      const stats = await call(account.api, 'GET', `/v1/conversations/stats?agent_id=${agentId}&start_date=2025-03-01&end_date=2025-03-01&bucket=hour`);
      expect(stats.body.data).toMatchObject({ total: 2, by_status: { completed: 1, in_progress: 1 }, timeline: { bucket: 'hour' } });
      expect(stats.body.data.timeline.points).toHaveLength(24);
      expect((await call(account.api, 'GET', '/v1/conversations/stats?bucket=week')).body.error).toMatchObject({ code: 'invalid_parameter', field: 'bucket' });
      expect((await call(account.api, 'GET', '/v1/conversations/stats?per_page=10')).body.error).toMatchObject({ code: 'invalid_parameter', field: 'per_page' });
      // The live stream: its opening as documented (it never ends, so it is read until its first lines), and a filter it refuses.
      expect((await checkStreamOpens(oa, system.baseUrl, account.api_key, `agent_id=${agentId}&status=completed`)).status).toBe(200);
      expect((await call(account.api, 'GET', '/v1/conversations/stream?status=done')).body.error).toMatchObject({ code: 'invalid_parameter', field: 'status' });

      // The other terminal states carry their own fields (failure_reason, abandonment_reason, technical.errors): validated too.
      const failed = { id: 'oa-call-3-f', type: 'call.failed', conversation_id: 'oa-call-3', agent_id: agentId, occurred_at: at(5),
        data: { failure_reason: 'media timeout', duration: 5, error: { code: 'media_timeout', message: 'no media for 5 s' } } };
      const abandoned = { id: 'oa-call-4-a', type: 'call.abandoned', conversation_id: 'oa-call-4', agent_id: agentId, occurred_at: at(3),
        data: { reason: 'no_answer' } };
      expect((await call(account.api, 'POST', '/v1/call-events', { events: [completedCall('oa-call-3', agentId)[0], failed, abandoned] })).status).toBe(202);
      for (const [id, status] of [['oa-call-3', 'failed'], ['oa-call-4', 'abandoned']]) {
        const settled = await eventually(() => account.api.get(`/v1/conversations/${id}`), (r) => r.status === 200 && r.body.data.status === status);
        expect(oa.check('GET', `/v1/conversations/${id}`, settled).body.data.status).toBe(status);
      }
      expect((await call(account.api, 'GET', '/v1/conversations?status=failed')).body.data[0].id).toBe('oa-call-3');

      const path = '/v1/conversations/oa-call-1/transcript';
      expect((await call(account.api, 'GET', path)).body.data.segments).toHaveLength(2);
      const srt = await call(account.api, 'GET', `${path}?format=srt`);
      expect(srt.headers.get('content-type')).toMatch(/^application\/x-subrip/);
      expect(srt.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
      expect((await call(account.api, 'GET', path, undefined, { accept: 'text/vtt' })).text).toMatch(/^WEBVTT/);
      expect((await call(account.api, 'GET', path, undefined, { accept: 'text/plain' })).headers.get('content-type')).toMatch(/^text\/plain/);
      expect((await call(account.api, 'GET', `${path}?format=pdf`)).body.error.code).toBe('invalid_parameter');
      expect((await call(account.api, 'GET', '/v1/conversations/oa-call-2/transcript')).status).toBe(404);
    }, 30_000);

    it('api keys: create 201 (secret once), list, revoke 204 and their errors', async () => {
      const created = await call(account.api, 'POST', '/v1/api-keys', { name: 'reporting', scopes: ['conversations:read'] });
      expect(created.status).toBe(201);
      expect((await call(account.api, 'GET', '/v1/api-keys?per_page=1')).status).toBe(200);
      expect((await call(account.api, 'POST', '/v1/api-keys', { scopes: ['everything'] })).body.error.code).toBe('invalid_parameter');
      expect((await call(account.api, 'POST', '/v1/api-keys', {})).body.error.code).toBe('missing_required_field');
      const narrow = system.client(created.body.data.api_key);
      expect((await call(narrow, 'POST', '/v1/api-keys', { scopes: ['agents:read'] })).status).toBe(403);
      expect((await call(account.api, 'DELETE', `/v1/api-keys/${created.body.data.id}`)).status).toBe(204);
      expect((await call(account.api, 'DELETE', '/v1/api-keys/key_000000000000000000000000')).status).toBe(404);
      expect((await call(narrow, 'GET', '/v1/conversations')).body.error.code).toBe('invalid_api_key');
    });

    it('integrations: put 200, list, get, delete 204 and their errors', async () => {
      const owner = await system.createAccount({ voice_platforms: ['platform_a'] });
      const simulators = await startSimulators();
      try {
        const body = { api_key: DEFAULT_API_KEY, webhook_secret: 'whsec_0123456789abcdef', base_url: simulators.platformA.url };
        const put = await call(owner.api, 'PUT', '/v1/integrations/platform_a', body);
        expect([put.status, put.body.data.status]).toEqual([200, 'verified']);
        expect((await call(owner.api, 'PUT', '/v1/integrations/platform_a', { ...body, api_key: 'wrong-key' })).body.error.code).toBe('invalid_platform_credentials');
        expect((await call(owner.api, 'PUT', '/v1/integrations/platform_b', body)).body.error.code).toBe('platform_not_enabled');
        expect((await call(owner.api, 'GET', '/v1/integrations')).body.data).toHaveLength(1);
        expect((await call(owner.api, 'GET', '/v1/integrations/platform_a')).status).toBe(200);
        expect((await call(owner.api, 'GET', '/v1/integrations/platform_b')).status).toBe(404);
        const agent = await call(owner.api, 'POST', '/v1/agents', { name: 'Integration user', voice_platform: 'platform_a' });
        expect((await call(owner.api, 'DELETE', '/v1/integrations/platform_a')).body.error.code).toBe('integration_in_use');
        expect((await call(owner.api, 'DELETE', `/v1/agents/${agent.body.data.id}`)).status).toBe(204);
        expect((await call(owner.api, 'DELETE', '/v1/integrations/platform_a')).status).toBe(204);
        expect((await call(owner.api, 'DELETE', '/v1/integrations/platform_a')).status).toBe(404);
      } finally {
        await simulators.stop();
      }
    });

    it('webhooks and the delivery log: signed deliveries 200, unsigned 401, list, get, replay 202 and their errors', async () => {
      for (const platform of ['platform_a', 'platform_b'] as const) {
        const agent = await call(account.api, 'POST', '/v1/agents', { name: `Webhook target ${platform}`, voice_platform: platform });
        const platformAgentId = agent.body.data.platform_sync.platform_agent_id;
        const { webhook_url: url } = (await call(account.api, 'GET', `/v1/integrations/${platform}`)).body.data;
        const path = new URL(url).pathname;
        const body = webhookBody(platform, platformAgentId, `oa-webhook-${platform}`);
        const delivered = await call(system.anonymous, 'POST', path, body, signed(platform, body, system.platforms.webhookSecret));
        expect([platform, delivered.status, delivered.body.data.outcome]).toEqual([platform, 200, 'accepted']);
        expect((await call(system.anonymous, 'POST', path, body, signed(platform, body, 'wrong-secret'))).body.error.code).toBe('invalid_signature');
        expect((await call(system.anonymous, 'POST', path, body, signed(platform, { other: true }, system.platforms.webhookSecret))).status).toBe(401);
        const id = delivered.body.data.delivery_id;
        expect((await call(account.api, 'GET', `/v1/webhook-deliveries/${id}`)).body.data.body).toBe(JSON.stringify(body));
        expect((await call(account.api, 'POST', `/v1/webhook-deliveries/${id}/replay`)).body.data.outcome).toBe('duplicate');
      }
      // The delivery and its replay (a new delivery, replay_of the first).
      expect((await call(account.api, 'GET', '/v1/webhook-deliveries?platform=platform_b')).body.data).toHaveLength(2);
      expect((await call(account.api, 'GET', '/v1/webhook-deliveries?outcome=sometimes')).status).toBe(400);
      expect((await call(account.api, 'GET', '/v1/webhook-deliveries/whd_000000000000000000000000')).status).toBe(404);
      expect((await call(account.api, 'POST', '/v1/webhook-deliveries/whd_000000000000000000000000/replay')).status).toBe(404);
    });

    it('webhook endpoints: create 201, list, get, secret, patch, delete 204 and their errors', async () => {
      const created = await call(account.api, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/oa-hooks', event_types: ['webhook.test'] });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      expect((await call(account.api, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/', event_types: ['call.ended'] })).body.error.code).toBe('invalid_parameter');
      expect((await call(account.api, 'GET', '/v1/webhook-endpoints')).body.data.map((e: { id: string }) => e.id)).toContain(id);
      expect((await call(account.api, 'GET', '/v1/webhook-endpoints?status=active')).status).toBe(400);
      expect((await call(account.api, 'GET', `/v1/webhook-endpoints/${id}`)).status).toBe(200);
      expect((await call(account.api, 'GET', `/v1/webhook-endpoints/${id}/secret`)).body.data.secret).toBe(created.body.data.secret);
      expect((await call(account.api, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`)).body.data.secret).not.toBe(created.body.data.secret);
      expect((await call(account.api, 'POST', '/v1/webhook-endpoints/we_000000000000000000000000/rotate-secret')).status).toBe(404);
      expect((await call(account.api, 'POST', `/v1/webhook-endpoints/${id}/test`)).body.data.succeeded).toBe(false);
      expect((await call(account.api, 'POST', '/v1/webhook-endpoints/we_000000000000000000000000/test')).status).toBe(404);
      expect((await call(account.api, 'PATCH', `/v1/webhook-endpoints/${id}`, { description: 'Docs' })).body.data.description).toBe('Docs');
      expect((await call(account.api, 'PATCH', `/v1/webhook-endpoints/${id}`, { enabled: 'no' })).body.error.field).toBe('enabled');
      // The delivery log: an endpoint that gets the account's agent events, and its one delivery.
      const receiving = await call(account.api, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/oa-deliveries', event_types: ['agent.created'] });
      const deliveries = `/v1/webhook-endpoints/${receiving.body.data.id}/deliveries`;
      expect((await call(account.api, 'POST', '/v1/agents', { name: 'Delivery log target', voice_platform: 'platform_a' })).status).toBe(201);
      const listed = await eventually(() => call(account.api, 'GET', deliveries), (r) => r.body.data?.length === 1);
      const deliveryId = listed.body.data[0].id;
      expect((await call(account.api, 'GET', `${deliveries}?status=lost`)).status).toBe(400);
      expect((await call(account.api, 'GET', `${deliveries}/${deliveryId}`)).body.data.id).toBe(deliveryId);
      expect((await call(account.api, 'GET', `${deliveries}/dlv_000000000000000000000000`)).status).toBe(404);
      expect((await call(account.api, 'POST', `${deliveries}/${deliveryId}/resend`)).status).toBe(202);
      expect((await call(account.api, 'POST', `${deliveries}/dlv_000000000000000000000000/resend`)).status).toBe(404);
      const recover = `/v1/webhook-endpoints/${receiving.body.data.id}/recover`;
      expect((await call(account.api, 'POST', recover, { since: '2025-01-01T00:00:00Z' })).status).toBe(202);
      expect((await call(account.api, 'POST', recover, { since: 'soon' })).body.error.code).toBe('invalid_date_format');
      const events = await call(account.api, 'GET', '/v1/events?type=agent.created');
      expect(events.body.data.length).toBeGreaterThan(0);
      expect((await call(account.api, 'GET', `/v1/events/${events.body.data[0].id}`)).status).toBe(200);
      expect((await call(account.api, 'GET', '/v1/events/evt_000000000000000000000000')).status).toBe(404);
      expect((await call(account.api, 'GET', '/v1/events?created_after=soon')).body.error.code).toBe('invalid_date_format');
      expect((await call(account.api, 'DELETE', `/v1/webhook-endpoints/${id}`)).status).toBe(204);
      for (const [method, path] of [['GET', ''], ['GET', '/secret'], ['PATCH', ''], ['DELETE', '']]) {
        expect((await call(account.api, method, `/v1/webhook-endpoints/${id}${path}`, method === 'PATCH' ? { enabled: true } : undefined)).status).toBe(404);
      }
    });

    it('audit log: list 200 (filtered) and 400', async () => {
      const created = await call(account.api, 'GET', '/v1/audit-events?action=api_key.created');
      expect(created.body.data.map((e: { actor: { type: string } }) => e.actor.type)).toContain('admin_token');
      expect((await call(account.api, 'GET', '/v1/audit-events?per_page=5&created_after=2025-01-01')).status).toBe(200);
      expect((await call(account.api, 'GET', '/v1/audit-events?action=everything')).body.error.field).toBe('action');
      expect((await call(account.api, 'GET', '/v1/audit-events?created_before=soon')).body.error.code).toBe('invalid_date_format');
    });

    it('data requests: 202, list, get and download 200, 400 and 404', async () => {
      const created = await call(account.api, 'POST', '/v1/data-requests', { type: 'access', caller_number: '+14155550100' });
      expect(created.status).toBe(202);
      expect((await call(account.api, 'POST', '/v1/data-requests', { type: 'access', caller_number: '4155550100' })).body.error.field).toBe('caller_number');
      expect((await call(account.api, 'GET', '/v1/data-requests?per_page=5')).body.data.map((r: { id: string }) => r.id)).toContain(created.body.data.id);
      expect((await call(account.api, 'GET', '/v1/data-requests?status=done')).body.error.field).toBe('status');
      const path = `/v1/data-requests/${created.body.data.id}`;
      await eventually(() => call(account.api, 'GET', path), (r) => r.body.data?.status === 'completed');
      expect((await call(account.api, 'GET', `${path}/download`)).body.request_id).toBe(created.body.data.id);
      expect((await call(account.api, 'GET', '/v1/data-requests/dr_000000000000000000000000')).status).toBe(404);
      expect((await call(account.api, 'GET', '/v1/data-requests/dr_000000000000000000000000/download')).status).toBe(404);
    });

    it('admin accounts: 201, 400 and 401', async () => {
      const admin = system.client(system.adminToken);
      const created = await call(admin, 'POST', '/v1/admin/accounts', { name: 'Acme', plan: 'starter', agent_limit: 3, voice_platforms: ['platform_a'] });
      expect(created.status).toBe(201);
      expect((await call(admin, 'POST', '/v1/admin/accounts', { name: 'Acme', plan: 'starter', agent_limit: -1, voice_platforms: ['platform_a'] })).status).toBe(400);
      expect((await call(system.client('wrong'), 'POST', '/v1/admin/accounts', {})).body.error.code).toBe('invalid_api_key');
      expect((await call(system.anonymous, 'POST', '/v1/admin/accounts', {})).body.error.code).toBe('authentication_required');
    });

    it('the pipeline errors of body routes (400 invalid_json, 415, 413) are documented', async () => {
      const raw = (rawBody: string, type: string) => account.api.request('POST', '/v1/agents', { rawBody, headers: { 'content-type': type } });
      expect(oa.check('POST', '/v1/agents', await raw('{"name":', 'application/json')).body.error.code).toBe('invalid_json');
      expect(oa.check('POST', '/v1/agents', await raw('name=x', 'application/x-www-form-urlencoded')).status).toBe(415);
      expect(oa.check('POST', '/v1/agents', await raw(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }), 'application/json')).status).toBe(413);
    });

    it('every scoped operation answers 401 without a key, and 403 to a key holding every scope but the documented one', async () => {
      const keys = new Map<string, ApiClient>();
      for (const scope of SCOPES) {
        const res = await account.api.post('/v1/api-keys', { scopes: SCOPES.filter((s) => s !== scope) });
        keys.set(scope, system.client(res.body.data.api_key));
      }
      const scoped = oa.operations.filter((op) => (SCOPES as readonly string[]).includes(op.spec['x-required-scope']));
      expect(scoped.length).toBeGreaterThanOrEqual(12);
      for (const op of scoped) {
        const url = concrete(op.path);
        const body = op.spec.requestBody ? {} : undefined;
        const anonymous = await call(system.anonymous, op.method, url, body);
        expect([op.method, op.path, anonymous.body.error.code]).toEqual([op.method, op.path, 'authentication_required']);
        const lacking = await call(keys.get(op.spec['x-required-scope'])!, op.method, url, body);
        expect([op.method, op.path, lacking.body.error.code]).toEqual([op.method, op.path, 'insufficient_permissions']);
      }
    }, 30_000);

    it('the docs page is HTML that loads only its own assets, all of which are served', async () => {
      const page = await call(system.anonymous, 'GET', '/docs');
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('swagger-ui');
      const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(urls.length).toBeGreaterThanOrEqual(4);
      for (const url of urls) {
        expect(url).toMatch(/^\/docs\//);
        const asset = await call(system.anonymous, 'GET', url);
        expect([url, asset.status]).toEqual([url, 200]);
      }
      const init = await system.anonymous.get('/docs/swagger-initializer.js');
      expect(init.text).toContain("url: '/v1/openapi.json'");
      expect(init.text).not.toMatch(/https?:\/\//);
      expect((await call(system.anonymous, 'GET', '/docs/..%2F..%2Fpackage.json')).status).toBe(404);
      expect((await call(system.anonymous, 'GET', '/docs/index.html')).status).toBe(404);
    });

    it('every request body example the document shows is accepted by the real API', async () => {
      const fresh = await system.createAccount({ agent_limit: 10, voice_platforms: ['platform_a', 'platform_b'] });
      const admin = system.client(system.adminToken);
      const target = await call(fresh.api, 'POST', '/v1/agents', { name: 'Example target', voice_platform: 'platform_a' });
      const agentId = target.body.data.id;
      const withBodies = oa.operations.filter((op) => op.spec.requestBody);
      expect(withBodies.map(nameOf).sort()).toEqual([
        'PATCH /v1/agents/{id}', 'POST /v1/admin/accounts', 'POST /v1/agents', 'POST /v1/api-keys', 'POST /v1/call-events',
        'POST /v1/webhooks/platform_a/{integration_id}', 'POST /v1/webhooks/platform_b/{integration_id}', 'PUT /v1/integrations/{platform}',
        'POST /v1/webhook-endpoints', 'PATCH /v1/webhook-endpoints/{id}', 'POST /v1/webhook-endpoints/{id}/recover', 'POST /v1/data-requests',
      ].sort());
      const endpointId = (await call(fresh.api, 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/examples' })).body.data.id;
      // Webhook examples go to another account's integrations: the PUT examples below replace fresh's secrets.
      const receiving = await system.createAccount({ voice_platforms: ['platform_a', 'platform_b'] });
      const integrations = (await call(receiving.api, 'GET', '/v1/integrations')).body.data as Array<{ platform: string; id: string }>;
      for (const op of withBodies) {
        const examples = requestExamples(op);
        expect([nameOf(op), examples.length > 0]).toEqual([nameOf(op), true]);
        for (const [name, value] of examples) {
          const client = op.spec['x-required-scope'] === 'admin' ? admin : fresh.api;
          // Integration examples name the platforms' public APIs, which do not resolve here: saved as unreachable.
          let path = op.path.replace('{id}', op.path.startsWith('/v1/webhook-endpoints') ? endpointId : agentId).replace('{platform}', 'platform_a');
          let headers: Record<string, string> | undefined;
          const body = forAgent(value, agentId);
          const webhookPlatform = /^\/v1\/webhooks\/(platform_[ab])\//.exec(op.path)?.[1];
          if (webhookPlatform) {
            // Signed for the account's integration: the example's platform agent is none of the account's, so it is logged as ignored.
            path = op.path.replace('{integration_id}', integrations.find((i) => i.platform === webhookPlatform)!.id);
            headers = signed(webhookPlatform, body, system.platforms.webhookSecret);
          }
          const res = await call(webhookPlatform ? system.anonymous : client, op.method, path, body, headers);
          expect([nameOf(op), name, res.status < 300 ? 'accepted' : res.text]).toEqual([nameOf(op), name, 'accepted']);
          // Agent examples share a name and a number: free them for the next one.
          if (op.path === '/v1/agents') expect((await call(fresh.api, 'DELETE', `/v1/agents/${res.body.data.id}`)).status).toBe(204);
        }
      }

      // The call the examples describe, read back: the documented transcript downloads are what the API renders for it.
      const transcriptOp = oa.operationFor('GET', '/v1/conversations/x/transcript');
      const conversationId = transcriptOp.spec.parameters.find((p: any) => p.name === 'id').example;
      await eventually(() => call(fresh.api, 'GET', `/v1/conversations/${conversationId}`), (r) => r.status === 200 && r.body.data.has_transcript);
      const documented = transcriptOp.spec.responses['200'].content;
      const formats: Record<string, string> = { 'text/plain': 'text', 'application/x-subrip': 'srt', 'text/vtt': 'vtt' };
      for (const [type, format] of Object.entries(formats)) {
        const res = await call(fresh.api, 'GET', `/v1/conversations/${conversationId}/transcript?format=${format}`);
        expect([type, res.text]).toEqual([type, documented[type].example]);
      }
      const json = await call(fresh.api, 'GET', `/v1/conversations/${conversationId}/transcript`);
      expect(json.body.data).toEqual(documented['application/json'].example.data);
    }, 30_000);

    it('with no service answering, the operations that need one answer 503 as documented (envelope, Retry-After)', async () => {
      // A second gateway on the same database (so the account's key works) and a NATS namespace no service listens on.
      const namespace = randomNamespace();
      const lonely = await startGateway({
        port: 0, host: '127.0.0.1', databaseUrl: system.databaseUrl, natsUrl: system.natsUrl, namespace, adminToken: system.adminToken, rpcTimeoutMs: 500,
      });
      try {
        const anonymous = checkedClient(apiClient(lonely.url), oa);
        const health = await anonymous.get('/health');
        expect(health.status).toBe(503);
        expect(health.body.data).toMatchObject({ status: 'unavailable', checks: { database: 'ok', agents_service: 'unavailable' } });

        const api = checkedClient(apiClient(lonely.url, account.api_key), oa);
        const unavailable: string[] = [];
        for (const op of oa.operations.filter((o) => (SCOPES as readonly string[]).includes(o.spec['x-required-scope']))) {
          const body = requestExamples(op)[0]?.[1];
          const res = await api.request(op.method, concrete(op.path), { body });
          if (res.status === 503) {
            expect([nameOf(op), res.body.error.code]).toEqual([nameOf(op), 'service_unavailable']);
            unavailable.push(nameOf(op));
          }
        }
        expect(unavailable.sort()).toEqual([
          'DELETE /v1/agents/{id}', 'GET /v1/agents', 'GET /v1/agents/{id}', 'GET /v1/conversations', 'GET /v1/conversations/stats', 'GET /v1/conversations/stream', 'GET /v1/conversations/{id}',
          'GET /v1/conversations/{id}/transcript', 'GET /v1/integrations', 'GET /v1/integrations/{platform}', 'PATCH /v1/agents/{id}', 'POST /v1/agents',
          'POST /v1/call-events', 'PUT /v1/integrations/{platform}', 'DELETE /v1/integrations/{platform}',
          'POST /v1/webhook-endpoints', 'GET /v1/webhook-endpoints', 'GET /v1/webhook-endpoints/{id}', 'GET /v1/webhook-endpoints/{id}/secret',
          'PATCH /v1/webhook-endpoints/{id}', 'DELETE /v1/webhook-endpoints/{id}', 'GET /v1/webhook-endpoints/{id}/deliveries',
          'GET /v1/webhook-endpoints/{id}/deliveries/{delivery_id}', 'POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend',
          'POST /v1/webhook-endpoints/{id}/recover', 'GET /v1/events', 'GET /v1/events/{id}', 'POST /v1/webhook-endpoints/{id}/rotate-secret', 'POST /v1/webhook-endpoints/{id}/test',
          'POST /v1/data-requests', 'GET /v1/data-requests', 'GET /v1/data-requests/{id}', 'GET /v1/data-requests/{id}/download',
        ].sort());
      } finally {
        await lonely.close();
        await deleteNamespaceStreams(namespace).catch(() => undefined);
      }
    }, 30_000);

    it('every documented operation was exercised above with a success, and with an error wherever it documents a 4xx; 5xx too', () => {
      expect(uncovered(oa)).toEqual({ success: [], clientError: [] });
      expect(oa.checked.filter((c) => c.status >= 500).length).toBeGreaterThanOrEqual(10);
    });
  });
});

/**
 * One-process mode (what `npm start` does without NATS_URL): the three apps over the in-process transport, started
 * as test/gateway-local.e2e-spec.ts does. It must serve the same document, and every route must answer as documented.
 */
describe('OpenAPI: one-process mode (in-process transport)', () => {
  let local: LocalSystem;
  let baseUrl: string;
  let adminToken: string;
  let oa: OpenApiValidator;
  /** A client that checks every response against the document this gateway serves. */
  const client = (bearer?: string) => checkedClient(apiClient(baseUrl, bearer), oa);

  beforeAll(async () => {
    local = await startLocalSystem('oalocal');
    ({ baseUrl, adminToken } = local);
    oa = await loadOpenApi(baseUrl);
  }, 60_000);

  afterAll(async () => {
    await local?.close();
  }, 30_000);

  it('serves the same document as the distributed mode', async () => {
    expect(oa.document).toEqual(await standaloneOpenApiDocument({ adminToken: 'configured' }));
  });

  it('answers every documented route as documented: a success each, and typical errors', async () => {
    const anonymous = client();
    const admin = client(adminToken);
    expect((await anonymous.get('/health')).body.data.status).toBe('ok');
    for (const path of ['/v1/openapi.json', '/docs', '/docs/swagger-initializer.js']) expect([path, (await anonymous.get(path)).status]).toEqual([path, 200]);
    expect((await anonymous.get('/docs/nothing.js')).status).toBe(404);

    const account = await admin.post('/v1/admin/accounts', { name: 'Local', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a', 'platform_b'] });
    expect(account.status).toBe(201);
    expect((await admin.post('/v1/admin/accounts', { name: 'Local' })).status).toBe(400);
    expect((await client('wrong').post('/v1/admin/accounts', {})).status).toBe(401);
    const api = client(account.body.data.api_key);
    await configureIntegrations(apiClient(baseUrl, account.body.data.api_key), local.platforms, ['platform_a']);

    const agent = await api.post('/v1/agents', { name: 'Local agent', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const agentId = agent.body.data.id;
    expect((await api.post('/v1/agents', { name: 'Elsewhere', voice_platform: 'platform_b' })).body.error.code).toBe('platform_not_configured');
    expect((await api.get('/v1/agents?status=active')).body.data).toHaveLength(1);
    expect((await api.get(`/v1/agents/${agentId}`)).status).toBe(200);
    expect((await api.get('/v1/agents/agt_unknown')).status).toBe(404);
    expect((await api.patch(`/v1/agents/${agentId}`, { welcome_message: 'Hi' }, { 'if-match': agent.headers.get('etag')! })).status).toBe(200);

    const events = completedCall('local-oa-1', agentId);
    expect((await api.post('/v1/call-events', { events })).status).toBe(202);
    expect((await api.post('/v1/call-events', { ...events[0], id: 'local-oa-x', agent_id: 'agt_other' })).body.error.code).toBe('unknown_agent');
    const detail = await eventually(() => api.get('/v1/conversations/local-oa-1'), (r) => r.status === 200 && r.body.data.status === 'completed');
    expect(detail.body.data.has_transcript).toBe(true);
    expect((await api.get('/v1/conversations?has_transcript=true')).body.data).toHaveLength(1);
    expect((await api.get('/v1/conversations?sentiment=happy')).body.error.code).toBe('invalid_parameter');
    expect((await api.get('/v1/conversations/stats?has_transcript=true')).body.data).toMatchObject({ total: 1, by_status: { completed: 1 }, top_topics: [{ topic: 'booking', count: 1 }] });
    expect((await api.get('/v1/conversations/stats?start_date=yesterday')).body.error.code).toBe('invalid_date_format');
    expect((await checkStreamOpens(oa, baseUrl, account.body.data.api_key, 'status=completed')).status).toBe(200);
    expect((await api.get('/v1/conversations/local-oa-1/transcript')).body.data.segments).toHaveLength(2);
    expect((await api.get('/v1/conversations/local-oa-1/transcript?format=vtt')).text).toMatch(/^WEBVTT/);
    expect((await api.get('/v1/conversations/nope/transcript')).status).toBe(404);

    const key = await api.post('/v1/api-keys', { name: 'reporting', scopes: ['conversations:read'] });
    expect(key.status).toBe(201);
    expect((await api.get('/v1/api-keys')).body.data).toHaveLength(2);
    expect((await client(key.body.data.api_key).get('/v1/agents')).status).toBe(403);
    expect((await api.delete(`/v1/api-keys/${key.body.data.id}`)).status).toBe(204);
    expect((await api.delete('/v1/api-keys/key_000000000000000000000000')).status).toBe(404);
    const platformAgentId = agent.body.data.platform_sync.platform_agent_id;
    const webhookPath = new URL((await api.get('/v1/integrations/platform_a')).body.data.webhook_url).pathname;
    const webhook = webhookBody('platform_a', platformAgentId, 'local-oa-webhook');
    const delivered = await anonymous.request('POST', webhookPath, { body: webhook, headers: signed('platform_a', webhook, local.platforms.webhookSecret) });
    expect([delivered.status, delivered.body.data.outcome]).toEqual([200, 'accepted']);
    expect((await anonymous.request('POST', webhookPath, { body: webhook })).status).toBe(401);
    const pbPath = new URL((await api.get('/v1/integrations/platform_a')).body.data.webhook_url.replace('/platform_a/', '/platform_b/')).pathname;
    expect((await anonymous.request('POST', pbPath, { body: webhook })).body.error.code).toBe('invalid_signature');
    const pbBody = webhookBody('platform_b', 'assistant-elsewhere', 'local-oa-webhook-b');
    // platform_b's route with platform_a's integration: the integration is not platform_b's, so the same 401 as any bad signature.
    expect((await anonymous.request('POST', pbPath, { body: pbBody, headers: signed('platform_b', pbBody, local.platforms.webhookSecret) })).status).toBe(401);
    await configureIntegrations(apiClient(baseUrl, account.body.data.api_key), local.platforms, ['platform_b']);
    const agentB = await api.post('/v1/agents', { name: 'Local agent B', voice_platform: 'platform_b' });
    const pbPathOfB = new URL((await api.get('/v1/integrations/platform_b')).body.data.webhook_url).pathname;
    const forB = webhookBody('platform_b', agentB.body.data.platform_sync.platform_agent_id, 'local-oa-webhook-b');
    expect((await anonymous.request('POST', pbPathOfB, { body: forB, headers: signed('platform_b', forB, local.platforms.webhookSecret) })).body.data.outcome).toBe('accepted');
    expect((await api.delete(`/v1/agents/${agentB.body.data.id}`)).status).toBe(204);
    expect((await api.get('/v1/webhook-deliveries')).body.data).toHaveLength(2);
    expect((await api.get(`/v1/webhook-deliveries/${delivered.body.data.delivery_id}`)).status).toBe(200);
    expect((await api.post(`/v1/webhook-deliveries/${delivered.body.data.delivery_id}/replay`)).body.data.outcome).toBe('duplicate');
    const integration = await api.put('/v1/integrations/platform_a', { api_key: 'pa_live_0123456789abcdef', webhook_secret: 'whsec_0123456789abcdef' });
    expect([integration.status, integration.body.data.status]).toEqual([200, 'unreachable']);
    expect((await api.get('/v1/integrations')).body.data).toHaveLength(2);
    expect((await api.get('/v1/integrations/platform_a')).status).toBe(200);
    expect((await api.delete('/v1/integrations/platform_a')).body.error.code).toBe('integration_in_use');
    expect((await api.delete(`/v1/agents/${agentId}`)).status).toBe(204);
    expect((await api.delete('/v1/integrations/platform_a')).status).toBe(204);
    expect((await anonymous.get('/v1/conversations')).status).toBe(401);

    const endpoint = await api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/local-hooks' });
    expect(endpoint.status).toBe(201);
    const endpointPath = `/v1/webhook-endpoints/${endpoint.body.data.id}`;
    expect((await api.get('/v1/webhook-endpoints')).body.data).toHaveLength(1);
    expect((await api.get(endpointPath)).status).toBe(200);
    expect((await api.get(`${endpointPath}/secret`)).body.data.secret).toBe(endpoint.body.data.secret);
    const agentC = await api.post('/v1/agents', { name: 'Local agent C', voice_platform: 'platform_b' });
    expect(agentC.status).toBe(201);
    const localDeliveries = await eventually(() => api.get(`${endpointPath}/deliveries`), (r) => r.body.data?.length >= 1);
    const localDelivery = localDeliveries.body.data[0].id;
    expect((await api.get(`${endpointPath}/deliveries/${localDelivery}`)).status).toBe(200);
    expect((await api.post(`${endpointPath}/deliveries/${localDelivery}/resend`, {})).status).toBe(202);
    expect((await api.post(`${endpointPath}/recover`, { since: '2025-01-01' })).status).toBe(202);
    const localEvents = await api.get('/v1/events');
    expect((await api.get(`/v1/events/${localEvents.body.data[0].id}`)).status).toBe(200);
    expect((await api.post(`${endpointPath}/rotate-secret`, {})).status).toBe(200);
    expect((await api.post(`${endpointPath}/test`, {})).status).toBe(200);
    expect((await api.patch(endpointPath, { enabled: false })).body.data.status).toBe('disabled');
    expect((await api.delete(endpointPath)).status).toBe(204);
    // The in-process stream hands the agent events to the gateway's audit consumer too, with who made each change.
    const audited = await eventually(() => api.get(`/v1/audit-events?target_id=${agentId}`), (r) => r.body.data?.some((e: { action: string }) => e.action === 'agent.deleted'));
    expect(audited.body.data.every((e: { actor: { type: string } }) => e.actor.type === 'api_key')).toBe(true);

    const request = await api.post('/v1/data-requests', { type: 'access', caller_number: '+14155550100' });
    expect(request.status).toBe(202);
    expect((await api.get('/v1/data-requests')).body.data).toHaveLength(1);
    await eventually(() => api.get(`/v1/data-requests/${request.body.data.id}`), (r) => r.body.data?.status === 'completed');
    expect((await api.get(`/v1/data-requests/${request.body.data.id}/download`)).status).toBe(200);

    expect(uncovered(oa).success).toEqual([]);
  }, 30_000);
});
