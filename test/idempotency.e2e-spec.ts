import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { apiClient, type ApiResponse } from './support/http.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/** Idempotency-Key as a client meets it: HTTP → gateway (key claimed in PostgreSQL) → NATS → services. */

const newKey = () => `test-${randomUUID()}`;
const withKey = (key: string) => ({ 'Idempotency-Key': key });
const agentBody = (name: string) => ({ name, voice_platform: 'platform_a', language: 'en', metadata: { team: 'front', floor: '2' } });

async function agentCount(account: TestAccount, name: string): Promise<number> {
  const res = await account.api.get(`/v1/agents?search=${encodeURIComponent(name)}&per_page=100`);
  expect(res.status).toBe(200);
  return (res.body.data as Array<{ name: string }>).filter((a) => a.name === name).length;
}

function expectError(res: ApiResponse, status: number, type: string, code: string, field?: string) {
  expect({ status: res.status, type: res.body?.error?.type, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
    status,
    type,
    code,
    field,
  });
}

/** The row of a client's key: stored as the SHA-256 of its scope and the key, never the key itself. */
async function keyRow(db: pg.Client, key: string): Promise<{ state: string; body: string | null } | undefined> {
  const { rows } = await db.query(
    `SELECT state, body FROM gateway.idempotency_keys WHERE key = encode(sha256(convert_to(account_scope, 'UTF8') || '\\x00'::bytea || convert_to($1, 'UTF8')), 'hex')`,
    [key],
  );
  return rows[0];
}

describe('Idempotency-Key', () => {
  jest.setTimeout(45_000);
  let system: RunningSystem;
  let account: TestAccount;
  let db: pg.Client;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ agent_limit: 20 });
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await system?.close();
  });

  it('a retry replays the first answer (status, body, Location, ETag) with Idempotent-Replayed, and creates nothing twice', async () => {
    const key = newKey();
    const first = await account.api.post('/v1/agents', agentBody('Replayed desk'), withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // The same JSON with its keys in another order is the same request.
    const { metadata, ...rest } = agentBody('Replayed desk');
    const retry = await account.api.post('/v1/agents', { metadata: { floor: '2', team: 'front' }, ...rest }, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('etag')).toBe(first.headers.get('etag'));
    void metadata;

    expect(await agentCount(account, 'Replayed desk')).toBe(1);
    const onPlatform = system.platforms.simulators.platformA.agents().filter((a) => a.agent_name === 'Replayed desk');
    expect(onPlatform).toHaveLength(1);
  });

  it('the same key with another body, or on another path, is 422 idempotency_key_reused', async () => {
    const key = newKey();
    expect((await account.api.post('/v1/agents', agentBody('Reused desk'), withKey(key))).status).toBe(201);

    expectError(await account.api.post('/v1/agents', agentBody('Reused desk 2'), withKey(key)), 422, 'validation_error', 'idempotency_key_reused', 'Idempotency-Key');
    expectError(await account.api.post('/v1/api-keys', { name: 'x', scopes: ['agents:read'] }, withKey(key)), 422, 'validation_error', 'idempotency_key_reused', 'Idempotency-Key');
    expect(await agentCount(account, 'Reused desk 2')).toBe(0);
    const keys = await account.api.get('/v1/api-keys');
    expect((keys.body.data as Array<{ name: string | null }>).some((k) => k.name === 'x')).toBe(false);
  });

  it('a 4xx is final and replayed too, even once the state that caused it has changed', async () => {
    const existing = await account.api.post('/v1/agents', agentBody('Taken desk'));
    expect(existing.status).toBe(201);
    const key = newKey();
    const refused = await account.api.post('/v1/agents', agentBody('Taken desk'), withKey(key));
    expectError(refused, 422, 'validation_error', 'duplicate_name', 'name');

    expect((await account.api.delete(`/v1/agents/${existing.body.data.id}`)).status).toBe(204);
    const retry = await account.api.post('/v1/agents', agentBody('Taken desk'), withKey(key));
    expect(retry.status).toBe(422);
    expect(retry.text).toBe(refused.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await agentCount(account, 'Taken desk')).toBe(0);
  });

  it('while the first request runs, the same request gets 409 idempotency_key_in_use; afterwards the replay', async () => {
    const key = newKey();
    // A slow platform keeps the create running (the inline sync waits for it) long enough to be caught.
    system.platforms.simulators.platformA.faults.delay(1_500);
    try {
      const first = account.api.post('/v1/agents', agentBody('Concurrent desk'), withKey(key));
      const claimed = await pollUntil(() => keyRow(db, key), (row) => row?.state === 'running', 10_000, 20);
      expect(claimed?.state).toBe('running');

      const second = await account.api.post('/v1/agents', agentBody('Concurrent desk'), withKey(key));
      expectError(second, 409, 'conflict_error', 'idempotency_key_in_use', 'Idempotency-Key');
      expect(second.headers.get('idempotent-replayed')).toBeNull();

      const firstAnswer = await first;
      expect(firstAnswer.status).toBe(201);
      const third = await account.api.post('/v1/agents', agentBody('Concurrent desk'), withKey(key));
      expect(third.status).toBe(201);
      expect(third.body.data.id).toBe(firstAnswer.body.data.id);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      system.platforms.simulators.platformA.faults.clear('delay');
    }
    expect(await agentCount(account, 'Concurrent desk')).toBe(1);
  });

  it('keys are per account: the same key and body in two accounts are two requests', async () => {
    const other = await system.createAccount({ agent_limit: 5 });
    const key = newKey();
    const mine = await account.api.post('/v1/agents', agentBody('Shared key desk'), withKey(key));
    const theirs = await other.api.post('/v1/agents', agentBody('Shared key desk'), withKey(key));
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(await agentCount(other, 'Shared key desk')).toBe(1);
  });

  it('call events: the retry gets the same 202 without publishing again', async () => {
    const agent = await account.api.post('/v1/agents', agentBody('Call desk'));
    expect(agent.status).toBe(201);
    const event = {
      id: 'evt-idem-1',
      type: 'call.started',
      conversation_id: 'call-idem-1',
      agent_id: agent.body.data.id,
      occurred_at: '2026-01-05T10:00:00Z',
      data: { caller_number: '+14155550123', start_time: '2026-01-05T10:00:00Z' },
    };
    const key = newKey();
    const first = await account.api.post('/v1/call-events', { events: [event] }, withKey(key));
    expect(first.status).toBe(202);
    const retry = await account.api.post('/v1/call-events', { events: [event] }, withKey(key));
    expect(retry.status).toBe(202);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await keyRow(db, key))?.state).toBe('done');
  });

  it('integrations (PUT), API keys and admin accounts replay too; the admin token has a scope of its own', async () => {
    const putKey = newKey();
    const integration = system.platforms.integrationBody('platform_a');
    const put = await account.api.put('/v1/integrations/platform_a', integration, withKey(putKey));
    expect(put.status).toBe(200);
    const putAgain = await account.api.put('/v1/integrations/platform_a', integration, withKey(putKey));
    expect(putAgain.status).toBe(200);
    expect(putAgain.text).toBe(put.text);
    expect(putAgain.headers.get('idempotent-replayed')).toBe('true');
    // Another platform with the same key is another path: a reuse.
    expectError(await account.api.put('/v1/integrations/platform_b', integration, withKey(putKey)), 422, 'validation_error', 'idempotency_key_reused', 'Idempotency-Key');

    const keyKey = newKey();
    const created = await account.api.post('/v1/api-keys', { name: 'idempotent', scopes: ['agents:read'] }, withKey(keyKey));
    expect(created.status).toBe(201);
    const createdAgain = await account.api.post('/v1/api-keys', { name: 'idempotent', scopes: ['agents:read'] }, withKey(keyKey));
    expect(createdAgain.text).toBe(created.text);
    expect(createdAgain.headers.get('cache-control')).toBe('no-store');
    const keys = await account.api.get('/v1/api-keys');
    expect((keys.body.data as Array<{ name: string | null }>).filter((k) => k.name === 'idempotent')).toHaveLength(1);
    // The replayed answer holds the new key's secret: the table keeps it sealed under the client's Idempotency-Key.
    const stored = await keyRow(db, keyKey);
    expect(stored?.body).toMatch(/^ia1\./);
    expect(stored?.body).not.toContain(created.body.data.api_key);
    expect(JSON.stringify((await db.query('SELECT * FROM gateway.idempotency_keys')).rows)).not.toContain(keyKey);

    const admin = apiClient(system.baseUrl, system.adminToken);
    const adminKey = newKey();
    const body = { name: 'Idempotent Co', plan: 'starter', agent_limit: 3 };
    const account1 = await admin.post('/v1/admin/accounts', body, withKey(adminKey));
    expect(account1.status).toBe(201);
    const account2 = await admin.post('/v1/admin/accounts', body, withKey(adminKey));
    expect(account2.status).toBe(201);
    expect(account2.body.data.id).toBe(account1.body.data.id);
    expect(account2.headers.get('idempotent-replayed')).toBe('true');
  });

  it('auth failures are decided first and never stored', async () => {
    const key = newKey();
    const anonymous = await system.anonymous.post('/v1/agents', agentBody('Anonymous desk'), withKey(key));
    expect(anonymous.status).toBe(401);
    expect(await keyRow(db, key)).toBeUndefined();
    const res = await account.api.post('/v1/agents', agentBody('Anonymous desk'), withKey(key));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a malformed key is 400 invalid_request naming the header, and nothing runs', async () => {
    for (const bad of ['x'.repeat(256), 'a\tb', '']) {
      const res = await account.api.post('/v1/agents', agentBody('Badly keyed desk'), withKey(bad));
      expectError(res, 400, 'invalid_request', 'invalid_request', 'Idempotency-Key');
    }
    expect(await agentCount(account, 'Badly keyed desk')).toBe(0);
    expect((await account.api.post('/v1/agents', agentBody('Well keyed desk'), withKey('x'.repeat(255)))).status).toBe(201);
  });
});

describe('Idempotency-Key when the gateway times out while the create commits', () => {
  jest.setTimeout(90_000);
  let system: RunningSystem;
  let account: TestAccount;
  let db: pg.Client;

  beforeAll(async () => {
    // Creates are bounded by RPC_TIMEOUT_MS plus the 10 s platform allowance: 11 s here.
    system = await startSystem({ rpcTimeoutMs: 1_000 });
    account = await system.createAccount({ agent_limit: 5 });
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await system?.close();
  });

  it('the 503 is not the end: the retry with the same key gets the agent the late create made, not duplicate_name', async () => {
    // Hold the account's create lock (agents-service queues every create of an account on this row), so the
    // create waits past the gateway's bound and commits only after the client was told 503.
    const blocker = new pg.Client({ connectionString: system.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('INSERT INTO agents.account_usage (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [account.id]);
      await blocker.query('SELECT 1 FROM agents.account_usage WHERE account_id = $1 FOR UPDATE', [account.id]);

      const key = newKey();
      const first = await account.api.post('/v1/agents', agentBody('Slow desk'), withKey(key));
      expectError(first, 503, 'service_unavailable_error', 'service_unavailable');
      // The key is kept while the reply may still come.
      expect((await keyRow(db, key))?.state).toBe('running');
      const meanwhile = await account.api.post('/v1/agents', agentBody('Slow desk'), withKey(key));
      expectError(meanwhile, 409, 'conflict_error', 'idempotency_key_in_use', 'Idempotency-Key');

      await blocker.query('COMMIT');
      const retry = await pollUntil(() => account.api.post('/v1/agents', agentBody('Slow desk'), withKey(key)), (res) => res.status !== 409, 30_000, 200);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.data.name).toBe('Slow desk');
      expect(retry.headers.get('location')).toBe(`/v1/agents/${retry.body.data.id}`);
      expect(retry.headers.get('etag')).toMatch(/^"[0-9]+"$/);
      expect(await agentCount(account, 'Slow desk')).toBe(1);

      // What the client would have met without a key: the create did happen.
      expectError(await account.api.post('/v1/agents', agentBody('Slow desk')), 422, 'validation_error', 'duplicate_name', 'name');
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
  });

  it('a 5xx is not stored: the key is released and the retry runs again', async () => {
    await system.stopService('agents');
    const key = newKey();
    const first = await account.api.post('/v1/agents', agentBody('Unserved desk'), withKey(key));
    expect(first.status).toBe(503);
    await pollUntil(() => keyRow(db, key), (row) => row === undefined, 5_000);
    expect(await keyRow(db, key)).toBeUndefined();
    const retry = await account.api.post('/v1/agents', agentBody('Unserved desk'), withKey(key));
    expectError(retry, 503, 'service_unavailable_error', 'service_unavailable');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });
});
