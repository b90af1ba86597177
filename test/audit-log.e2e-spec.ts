import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import type { ApiClient, ApiResponse } from './support/http.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

jest.setTimeout(120_000);

interface AuditEvent {
  id: string;
  action: string;
  actor: { type: 'api_key'; key_id: string; name: string | null } | { type: 'admin_token' } | { type: 'system' };
  target_id: string | null;
  changed_fields: string[] | null;
  request_id: string | null;
  client_address: string | null;
  created_at: string;
}

/** What one audited request answered, to compare with its entry. */
interface Done {
  action: string;
  target: string;
  requestId: string;
  changed?: string[];
}

const SYSTEM_PROMPT = 'You answer for Rossi Dental. Never read out a card number.';
const CALLER_NUMBER = '+14155550188';

/**
 * The audit log through the real gateway: every audited action made with two keys of one account and the admin
 * token (API keys, integrations, agents with their changed fields and privacy settings, webhook endpoints, a data
 * request and its completion), then
 * read back with each filter — who (key id and name, or the admin token), what, which target, which request (the
 * X-Request-Id the change was answered with), from which address — and checked in the database for secrets and
 * personal data.
 */
describe('audit log', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let other: TestAccount;
  let ops: ApiClient;
  let opsKey: { id: string; api_key: string };
  let bootstrapKeyId: string;
  let agentId: string;
  let endpointId: string;
  let dataRequestId: string;
  const endpointSecrets: string[] = [];
  /** The agent's number (bought on the platform), once known. */
  const phoneNumbers: Array<string | null> = [];
  const done: Done[] = [];
  let db: pg.Client;

  const requestIdOf = (res: ApiResponse) => res.headers.get('x-request-id')!;
  const expectStatus = (res: ApiResponse, status: number) => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  };
  const audit = async (query = '', client: ApiClient = account.api): Promise<AuditEvent[]> => {
    const res = expectStatus(await client.get(`/v1/audit-events?per_page=100${query}`), 200);
    return res.body.data as AuditEvent[];
  };
  /** The log once the agent events (from AGENT_EVENTS) and the data request's end (from DATA_REQUEST_EVENTS) are in it. */
  const settledAudit = () =>
    pollUntil(
      () => audit(),
      (events) => events.filter((e) => e.action.startsWith('agent.')).length >= 7 && events.some((e) => e.action === 'data_request.completed'),
      30_000,
    );

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
    // The admin token creates the account and its bootstrap key; the bootstrap key configures both integrations.
    account = await system.createAccount({ name: 'Rossi Dental' });
    other = await system.createAccount({ name: 'Other practice' });
    const keys = expectStatus(await account.api.get('/v1/api-keys'), 200).body.data as Array<{ id: string; name: string }>;
    bootstrapKeyId = keys.find((k) => k.name === 'bootstrap')!.id;
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();

    // The bootstrap key creates a second key, "ops"; ops makes the agent changes.
    const created = expectStatus(await account.api.post('/v1/api-keys', { name: 'ops', scopes: ['agents:read', 'agents:write', 'webhooks:read'] }), 201);
    opsKey = created.body.data;
    done.push({ action: 'api_key.created', target: opsKey.id, requestId: requestIdOf(created) });
    ops = system.client(opsKey.api_key);

    const agent = expectStatus(
      await ops.post('/v1/agents', { name: 'Front desk', voice_platform: 'platform_b', system_prompt: SYSTEM_PROMPT }),
      201,
    );
    agentId = agent.body.data.id;
    phoneNumbers.push(agent.body.data.phone_number);
    done.push({ action: 'agent.created', target: agentId, requestId: requestIdOf(agent) });
    const renamed = expectStatus(await ops.patch(`/v1/agents/${agentId}`, { name: 'Reception', system_prompt: `${SYSTEM_PROMPT} Be brief.` }), 200);
    done.push({ action: 'agent.updated', target: agentId, requestId: requestIdOf(renamed), changed: ['name', 'system_prompt'] });
    const privacy = expectStatus(
      await ops.patch(`/v1/agents/${agentId}`, { pii_redaction: { enabled: true }, store_content: false, welcome_message: 'Hello!' }),
      200,
    );
    done.push({ action: 'agent.updated', target: agentId, requestId: requestIdOf(privacy), changed: ['pii_redaction', 'store_content', 'welcome_message'] });
    done.push({ action: 'agent.privacy_settings_changed', target: agentId, requestId: requestIdOf(privacy), changed: ['pii_redaction', 'store_content'] });
    const paused = expectStatus(await ops.patch(`/v1/agents/${agentId}`, { status: 'paused' }), 200);
    done.push({ action: 'agent.paused', target: agentId, requestId: requestIdOf(paused) });
    const resumed = expectStatus(await ops.patch(`/v1/agents/${agentId}`, { status: 'active' }), 200);
    done.push({ action: 'agent.resumed', target: agentId, requestId: requestIdOf(resumed) });
    phoneNumbers.push(resumed.body.data.phone_number);
    const deleted = expectStatus(await ops.delete(`/v1/agents/${agentId}`), 204);
    done.push({ action: 'agent.deleted', target: agentId, requestId: requestIdOf(deleted) });

    // The bootstrap key: a webhook endpoint's whole life, an integration removed, the ops key revoked.
    const endpoint = expectStatus(await account.api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', description: 'CRM' }), 201);
    endpointId = endpoint.body.data.id;
    endpointSecrets.push(endpoint.body.data.secret);
    done.push({ action: 'webhook_endpoint.created', target: endpointId, requestId: requestIdOf(endpoint) });
    const updated = expectStatus(await account.api.patch(`/v1/webhook-endpoints/${endpointId}`, { url: 'http://127.0.0.1:9/hooks?token=s3cr3t-in-url', enabled: false }), 200);
    done.push({ action: 'webhook_endpoint.updated', target: endpointId, requestId: requestIdOf(updated), changed: ['url', 'enabled'] });
    const revealed = expectStatus(await account.api.get(`/v1/webhook-endpoints/${endpointId}/secret`), 200);
    done.push({ action: 'webhook_endpoint.secret_revealed', target: endpointId, requestId: requestIdOf(revealed) });
    const rotated = expectStatus(await account.api.post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`), 200);
    endpointSecrets.push(rotated.body.data.secret);
    done.push({ action: 'webhook_endpoint.secret_rotated', target: endpointId, requestId: requestIdOf(rotated) });
    const endpointDeleted = expectStatus(await account.api.delete(`/v1/webhook-endpoints/${endpointId}`), 204);
    done.push({ action: 'webhook_endpoint.deleted', target: endpointId, requestId: requestIdOf(endpointDeleted) });
    const removed = expectStatus(await account.api.delete('/v1/integrations/platform_a'), 204);
    done.push({ action: 'integration.removed', target: 'platform_a', requestId: requestIdOf(removed) });
    // A caller's data request, by the bootstrap key; it completes in the background (the system's entry).
    const dataRequest = expectStatus(await account.api.post('/v1/data-requests', { type: 'access', caller_number: CALLER_NUMBER }), 202);
    dataRequestId = dataRequest.body.data.id;
    done.push({ action: 'data_request.created', target: dataRequestId, requestId: requestIdOf(dataRequest) });
    const revoked = expectStatus(await account.api.delete(`/v1/api-keys/${opsKey.id}`), 204);
    done.push({ action: 'api_key.revoked', target: opsKey.id, requestId: requestIdOf(revoked) });
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await system?.close();
  });

  it('records every action with who made it, the request id it was answered with and the client’s address', async () => {
    const events = await settledAudit();
    for (const action of done) {
      const entry = events.find((e) => e.action === action.action && e.request_id === action.requestId);
      expect({ action, entry }).toEqual({ action, entry: expect.objectContaining({ target_id: action.target }) });
      expect(entry!.changed_fields).toEqual(action.changed ?? null);
      expect(entry!.client_address).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    }
    const byOps = done.filter((d) => d.action.startsWith('agent.')).map((d) => d.requestId);
    for (const entry of events) {
      const expected = byOps.includes(entry.request_id!)
        ? { type: 'api_key', key_id: opsKey.id, name: 'ops' }
        : entry.action === 'data_request.completed'
          ? { type: 'system' }
          : entry.actor.type === 'admin_token'
            ? { type: 'admin_token' }
            : { type: 'api_key', key_id: bootstrapKeyId, name: 'bootstrap' };
      expect({ action: entry.action, actor: entry.actor }).toEqual({ action: entry.action, actor: expected });
    }
  });

  it('a data request’s end is the system’s entry, after the request that created it', async () => {
    await settledAudit();
    const entries = await audit(`&target_id=${dataRequestId}`);
    expect(entries.map((e) => [e.action, e.actor.type, e.request_id === null, e.client_address])).toEqual([
      ['data_request.completed', 'system', true, null],
      ['data_request.created', 'api_key', false, expect.any(String)],
    ]);
  });

  it('the admin token created the account’s first key; the bootstrap key configured the integrations', async () => {
    const created = await audit('&action=api_key.created');
    expect(created.map((e) => [e.actor, e.target_id])).toEqual([
      [{ type: 'api_key', key_id: bootstrapKeyId, name: 'bootstrap' }, opsKey.id],
      [{ type: 'admin_token' }, bootstrapKeyId],
    ]);
    const configured = await audit('&action=integration.configured');
    expect(configured.map((e) => e.target_id).sort()).toEqual(['platform_a', 'platform_b']);
    expect(configured.every((e) => e.actor.type === 'api_key' && e.actor.key_id === bootstrapKeyId)).toBe(true);
  });

  it('filters by key, action, target and time; newest first; nothing of another account', async () => {
    await settledAudit();
    const byOps = await audit(`&actor_key_id=${opsKey.id}`);
    const times = byOps.map((e) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(byOps[0].action).toBe('agent.deleted');
    expect(byOps.at(-1)!.action).toBe('agent.created');
    expect(byOps.map((e) => e.action).sort()).toEqual(
      ['agent.created', 'agent.deleted', 'agent.paused', 'agent.privacy_settings_changed', 'agent.resumed', 'agent.updated', 'agent.updated'],
    );
    const privacy = await audit('&action=agent.privacy_settings_changed');
    expect(privacy.map((e) => [e.target_id, e.changed_fields])).toEqual([[agentId, ['pii_redaction', 'store_content']]]);
    const endpoint = await audit(`&target_id=${endpointId}`);
    expect(endpoint.map((e) => e.action)).toEqual([
      'webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.secret_revealed', 'webhook_endpoint.updated', 'webhook_endpoint.created',
    ]);
    const all = await audit();
    const middle = all[Math.floor(all.length / 2)].created_at;
    const after = await audit(`&created_after=${encodeURIComponent(middle)}`);
    const before = await audit(`&created_before=${encodeURIComponent(middle)}`);
    expect(after.every((e) => e.created_at >= middle) && before.every((e) => e.created_at <= middle)).toBe(true);
    expect(new Set([...after, ...before].map((e) => e.id)).size).toBe(all.length);
    expect(await audit(`&created_after=2999-01-01`)).toEqual([]);
    // The other account sees only its own account's creation and integrations.
    expect((await audit('', other.api)).map((e) => e.action).sort()).toEqual(['api_key.created', 'integration.configured', 'integration.configured']);
  });

  it('needs audit:read; wrong filters are 400 naming the field; no route changes an entry', async () => {
    const reader = expectStatus(await account.api.post('/v1/api-keys', { name: 'reader', scopes: ['agents:read'] }), 201);
    const denied = await system.client(reader.body.data.api_key).get('/v1/audit-events');
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'insufficient_permissions' });
    for (const [query, field] of [['action=agent.renamed', 'action'], ['actor_key_id=vk_1', 'actor_key_id'], ['created_after=soon', 'created_after'], ['per_page=0', 'per_page']]) {
      const res = await account.api.get(`/v1/audit-events?${query}`);
      expect([res.status, res.body.error?.field]).toEqual([400, field]);
    }
    const [entry] = await audit();
    for (const method of ['PATCH', 'PUT', 'DELETE', 'POST']) {
      expect((await account.api.request(method, `/v1/audit-events/${entry.id}`, { body: {} })).status).toBe(404);
    }
    // The list's path exists for GET only.
    expect((await account.api.request('DELETE', '/v1/audit-events')).status).toBe(405);
    expect((await audit()).find((e) => e.id === entry.id)).toEqual(entry);
  });

  it('no entry holds a secret, a phone number or what a field was set to', async () => {
    await settledAudit();
    const { rows } = await db.query<{ row: string }>('SELECT t::text AS row FROM gateway.audit_events t');
    expect(rows.length).toBeGreaterThanOrEqual(done.length + 3);
    const integration = system.platforms.integrationBody('platform_b');
    const forbidden = [
      account.api_key, other.api_key, opsKey.api_key, system.adminToken, ...endpointSecrets, integration.api_key, integration.webhook_secret,
      CALLER_NUMBER, CALLER_NUMBER.slice(2),
      ...phoneNumbers.filter((n): n is string => typeof n === 'string').flatMap((n) => [n, n.slice(2)]), SYSTEM_PROMPT, 'Reception', 'Hello!', 's3cr3t-in-url', 'vk_', 'whsec_',
    ];
    expect(phoneNumbers.some((n) => typeof n === 'string')).toBe(true);
    const found = rows.flatMap(({ row }) => forbidden.filter((needle) => row.includes(needle)).map((needle) => `${needle} in ${row}`));
    expect(found).toEqual([]);
  });
});
