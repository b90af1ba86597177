/**
 * Drift between our agents and their platforms, against the real agents-service and both platform simulators:
 * a "platform dashboard user" deletes, releases and edits through the platform's own management API, and the
 * background reconciliation (a short interval here) sets the platform back to what we recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, IntegrationsRpc, type AccountContext, type AgentReply, type AgentView } from '@voice/contracts';
import { createLogger } from '@voice/service-kit';
import { startWebhookReceiver } from '@voice/platform-simulators';
import pg from 'pg';
import { lastValueFrom, timeout } from 'rxjs';
import {
  newAccount, numberSequence, startAgentsHarness, startAgentsReplicas, TEST_RETRY_POLICY, type AgentsHarness, type AgentsReplicas,
} from '../testing/agents-harness.js';

const RECONCILE_INTERVAL_MS = 400;
const uniqueNumber = numberSequence('+1646557');

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A call of the platform's management API, as its dashboard makes it. */
async function dashboard(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

async function syncEventTypes(databaseUrl: string, agentId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT type FROM agents.events WHERE stream_id = $1 ORDER BY stream_version', [`agent-sync-${agentId}`]);
    return rows.map((row: { type: string }) => row.type);
  } finally {
    await client.end();
  }
}

describe('reconciliation: the platforms are set back to our agents', () => {
  let h: AgentsHarness;
  let account: AccountContext;
  beforeAll(async () => {
    h = await startAgentsHarness('reconcile', {
      platformSync: { pollIntervalMs: 100, retryPolicy: TEST_RETRY_POLICY, reconcileIntervalMs: RECONCILE_INTERVAL_MS },
    });
    account = await h.account();
  });
  afterAll(async () => {
    await h?.close();
  });

  const key = () => h.simulators.platformA.getApiKeys()[0];
  const get = async (agentId: string) => (await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agentId })).agent;
  const create = async (body: Record<string, unknown>) => (await h.rpc<AgentReply>(AgentsRpc.create, { account, body }, 15_000)).agent;
  const repaired = (agentId: string) => eventually(() => get(agentId), (agent) => agent.platform_sync.last_drift?.repaired_at != null && agent.platform_sync.state === 'synced');

  it('an agent deleted and its bought number released on platform_a: recreated, a new number bought and bound, callable, the drift recorded', async () => {
    const before = await create({ name: 'Deleted in the dashboard', voice_platform: 'platform_a', system_prompt: 'Be kind.' });
    expect(before.platform_sync.state).toBe('synced');
    const oldPlatformId = before.platform_sync.platform_agent_id!;
    const oldNumber = before.phone_number!;
    const a = h.simulators.urls.platformA;
    expect(await dashboard(a, key(), 'DELETE', `/v2/agents/${oldPlatformId}`)).toBe(204);
    expect(await dashboard(a, key(), 'DELETE', `/v2/phone-numbers/${encodeURIComponent(oldNumber)}`)).toBe(204);

    const after = await repaired(before.id);
    const newPlatformId = after.platform_sync.platform_agent_id!;
    expect(newPlatformId).not.toBe(oldPlatformId);
    expect(after.phone_number).not.toBe(oldNumber);
    expect(after.platform_sync).toMatchObject({
      state: 'synced',
      last_reconciled_at: expect.any(String),
      last_drift: {
        platform: 'platform_a', agent_missing: true, number: 'missing', changed_fields: [],
        found_at: expect.any(String), repaired_at: expect.any(String), phone_number_before: oldNumber, phone_number_after: after.phone_number,
      },
    });
    const onPlatform = h.simulators.platformA.agents().filter((agent) => agent.metadata.external_id === before.id);
    expect(onPlatform).toEqual([expect.objectContaining({ agent_id: newPlatformId, prompt: 'Be kind.', agent_name: 'Deleted in the dashboard' })]);
    expect(h.simulators.platformA.phoneNumbers().find((n) => n.phone_number === after.phone_number)).toMatchObject({ inbound_agent_id: newPlatformId, purchased: true });

    // Callable again: the platform places a call to the recreated agent and delivers its webhooks.
    const receiver = await startWebhookReceiver();
    try {
      const call = await h.simulators.platformA.placeCall({ agentId: newPlatformId, webhookUrl: receiver.url });
      expect(call.deliveries.every((delivery) => delivery.delivered)).toBe(true);
      expect(receiver.received.length).toBeGreaterThan(0);
    } finally {
      await receiver.stop();
    }
    const events = await syncEventTypes(h.db.url, before.id);
    expect(events.filter((type) => type === 'AgentPlatformDriftFound')).toHaveLength(1);
    expect(events.filter((type) => type === 'AgentPlatformDriftRepaired')).toHaveLength(1);
  });

  it('through platform errors (5xx on the listing or on the repair): retried, repaired once, the lost bought number replaced', async () => {
    const before = await create({ name: 'Deleted during an outage', voice_platform: 'platform_a' });
    const a = h.simulators.urls.platformA;
    expect(await dashboard(a, key(), 'DELETE', `/v2/agents/${before.platform_sync.platform_agent_id}`)).toBe(204);
    expect(await dashboard(a, key(), 'DELETE', `/v2/phone-numbers/${encodeURIComponent(before.phone_number!)}`)).toBe(204);
    h.simulators.platformA.faults.serverError({ count: 6, status: 503 });

    const after = await repaired(before.id);
    expect(after.phone_number).not.toBe(before.phone_number);
    expect(after.platform_sync.last_drift).toMatchObject({ agent_missing: true, number: 'missing', phone_number_before: before.phone_number, phone_number_after: after.phone_number });
    expect(h.simulators.platformA.agents().filter((agent) => agent.metadata.external_id === before.id)).toHaveLength(1);
    expect(h.simulators.platformA.phoneNumbers().filter((n) => n.inbound_agent_id === after.platform_sync.platform_agent_id)).toHaveLength(1);
    const events = await syncEventTypes(h.db.url, before.id);
    expect(events.filter((type) => type === 'AgentPlatformDriftFound')).toHaveLength(1);
    expect(events.filter((type) => type === 'AgentPlatformDriftRepaired')).toHaveLength(1);
  });

  it('a customer number released on platform_a is imported again (the agent keeps its number)', async () => {
    const phone = uniqueNumber();
    const before = await create({ name: 'Number released', voice_platform: 'platform_a', phone_number: phone });
    expect(await dashboard(h.simulators.urls.platformA, key(), 'DELETE', `/v2/phone-numbers/${encodeURIComponent(phone)}`)).toBe(204);

    const after = await repaired(before.id);
    expect(after.phone_number).toBe(phone);
    expect(after.platform_sync.last_drift).toMatchObject({ agent_missing: false, number: 'missing', phone_number_before: phone, phone_number_after: phone });
    expect(h.simulators.platformA.phoneNumbers().find((n) => n.phone_number === phone)).toMatchObject({
      inbound_agent_id: before.platform_sync.platform_agent_id, purchased: false,
    });
  });

  it('a prompt edited on platform_b is set back, and only that field is sent', async () => {
    const before = await create({ name: 'Edited in the dashboard', voice_platform: 'platform_b', system_prompt: 'Be kind.', transfer_number: '+12125550100' });
    const assistantId = before.platform_sync.platform_agent_id!;
    const b = h.simulators.urls.platformB;
    expect(await dashboard(b, key(), 'PATCH', `/assistant/${assistantId}`, { model: { messages: [{ role: 'system', content: 'Be rude.' }] } })).toBe(200);
    h.simulators.platformB.clearRequests();

    const after = await repaired(before.id);
    expect(after.platform_sync).toMatchObject({ platform_agent_id: assistantId, last_drift: { agent_missing: false, number: null, changed_fields: ['system_prompt'] } });
    const assistant = h.simulators.platformB.agents().find((x) => x.id === assistantId)!;
    expect(assistant.model).toEqual({ messages: [{ role: 'system', content: 'Be kind.' }] });
    const patches = h.simulators.platformB.requests().filter((r) => r.method === 'PATCH' && r.path === `/assistant/${assistantId}`);
    expect(patches.map((r) => r.body)).toEqual([{ model: { messages: [{ role: 'system', content: 'Be kind.' }] } }]);
  });

  it('an agent as recorded: only the time of the look is kept, no event, no write to the platform', async () => {
    const agent = await create({ name: 'Left alone', voice_platform: 'platform_b', system_prompt: 'Hi.' });
    const eventsBefore = await syncEventTypes(h.db.url, agent.id);
    const looked = await eventually(() => get(agent.id), (a) => a.platform_sync.last_reconciled_at !== null);
    expect(looked.platform_sync).toMatchObject({ state: 'synced', last_drift: null, last_reconciled_at: expect.any(String) });
    const later = await eventually(() => get(agent.id), (a) => a.platform_sync.last_reconciled_at! > looked.platform_sync.last_reconciled_at!);
    expect(later.platform_sync.last_reconciled_at! > looked.platform_sync.last_reconciled_at!).toBe(true);
    expect(await syncEventTypes(h.db.url, agent.id)).toEqual(eventsBefore);
    expect(later.platform_sync.synced_version).toBe(agent.platform_sync.synced_version);
  });

  it('a key revoked on the platform: the listing marks the integration invalid_credentials and records the refusal once, however many looks meet it', async () => {
    const own = newAccount({ voice_platforms: ['platform_a'] });
    const ownKey = `reconcile-own-${Date.now()}`;
    h.simulators.platformA.setApiKeys([...h.simulators.platformA.getApiKeys(), ownKey]);
    await h.rpc(IntegrationsRpc.configure, {
      account: own, platform: 'platform_a', public_url: 'http://127.0.0.1:8080',
      body: { api_key: ownKey, webhook_secret: 'whsec_own_secret', base_url: h.simulators.urls.platformA },
    });
    const agent = (await h.rpc<AgentReply>(AgentsRpc.create, { account: own, body: { name: 'Key revoked', voice_platform: 'platform_a' } }, 15_000)).agent;
    expect(agent.platform_sync.state).toBe('synced');
    h.simulators.platformA.setApiKeys(h.simulators.platformA.getApiKeys().filter((k) => k !== ownKey));

    const integration = () => h.rpc<{ integration: { id: string; status: string } }>(IntegrationsRpc.get, { account_id: own.id, platform: 'platform_a' });
    const marked = await eventually(integration, (reply) => reply.integration.status === 'invalid_credentials');
    expect(marked.integration.status).toBe('invalid_credentials');
    // Several more looks meet the same refusal.
    await new Promise((r) => setTimeout(r, RECONCILE_INTERVAL_MS * 5));
    const client = new pg.Client({ connectionString: h.db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT type, data FROM agents.events WHERE stream_id = $1', [`integration-${marked.integration.id}`]);
      expect(rows).toEqual([{
        type: 'IntegrationCredentialsRefused',
        data: {
          account_id: own.id, integration_id: marked.integration.id, platform: 'platform_a', at: expect.any(String),
          reason: 'platform_a refused the stored API key while its agents were being listed for reconciliation.',
        },
      }]);
    } finally {
      await client.end();
    }
  });
});

describe('reconciliation with two replicas against one database', () => {
  const account = newAccount({ voice_platforms: ['platform_a'] });
  let set: AgentsReplicas;
  let db: AgentsReplicas['db'];
  let simulators: AgentsReplicas['simulators'];
  let client: AgentsReplicas['client'];

  beforeAll(async () => {
    set = await startAgentsReplicas('reconcile-replicas', {
      account,
      platforms: ['platform_a'],
      loggers: [0, 1].map((i) => createLogger(`agents-service-${i}`, { write: () => undefined })),
      // Both look often and at once: a drift must still be repaired once.
      platformSync: { pollIntervalMs: 100, retryPolicy: TEST_RETRY_POLICY, reconcileIntervalMs: 200 },
    });
    ({ db, simulators, client } = set);
  }, 30_000);

  afterAll(async () => {
    await set?.close();
  });

  it('never repairs one agent twice: one platform create and one repair event per deleted agent', async () => {
    const agents: AgentView[] = [];
    for (let i = 0; i < 6; i++) {
      const reply = await lastValueFrom(client.send<AgentReply>(AgentsRpc.create, { account, body: { name: `Replicated ${i}`, voice_platform: 'platform_a' } }).pipe(timeout(15_000)));
      agents.push(reply.agent);
    }
    expect(agents.every((agent) => agent.platform_sync.state === 'synced')).toBe(true);
    simulators.platformA.clearRequests();
    for (const agent of agents) expect(await dashboard(simulators.urls.platformA, 'replica-key', 'DELETE', `/v2/agents/${agent.platform_sync.platform_agent_id}`)).toBe(204);

    const get = async (id: string) => (await lastValueFrom(client.send<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: id }).pipe(timeout(10_000)))).agent;
    const all = () => Promise.all(agents.map((agent) => get(agent.id)));
    const after = await eventually(all, (list) => list.every((agent) => agent.platform_sync.state === 'synced' && agent.platform_sync.last_drift?.repaired_at != null));
    expect(after.map((agent) => agent.platform_sync.last_drift?.agent_missing)).toEqual(agents.map(() => true));
    // A few more looks by both replicas change nothing.
    await new Promise((r) => setTimeout(r, 1_000));

    const creates = simulators.platformA.requests().filter((r) => r.method === 'POST' && r.path === '/v2/agents');
    expect(creates).toHaveLength(agents.length);
    for (const agent of agents) {
      expect(simulators.platformA.agents().filter((x) => x.metadata.external_id === agent.id)).toHaveLength(1);
      const events = await syncEventTypes(db.url, agent.id);
      expect(events.filter((type) => type === 'AgentPlatformDriftFound')).toHaveLength(1);
      expect(events.filter((type) => type === 'AgentPlatformDriftRepaired')).toHaveLength(1);
    }
  });
});

describe('reconciliation reading a platform that changes during the look', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    // A long interval: the test alone decides when the scope is looked at, so it knows which listing comes first.
    h = await startAgentsHarness('reconcile-torn', {
      platformSync: { pollIntervalMs: 100, retryPolicy: TEST_RETRY_POLICY, reconcileIntervalMs: 600_000 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an agent deleted between the two listings of a look is found missing, not as its number unbound from a listed agent', async () => {
    const account = await h.account({ voice_platforms: ['platform_a'] });
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Deleted mid-look', voice_platform: 'platform_a' } }, 15_000);
    expect(agent.platform_sync.state).toBe('synced');
    const platform = h.simulators.platformA;
    const listing = (r: { method: string; path: string; query: string }) =>
      r.method === 'GET' && (r.path === '/v2/agents' || r.path === '/v2/phone-numbers') && !r.query.includes('external_id');
    const seen = platform.requests().length;

    // The first listing of the look is answered 1 s late, as it was read: the deletion lands before the second.
    platform.faults.delay(1_000);
    const client = new pg.Client({ connectionString: h.db.url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO agents.platform_reconcile_scopes (account_id, platform, next_due_at) VALUES ($1, 'platform_a', now())
         ON CONFLICT (account_id, platform) DO UPDATE SET next_due_at = now()`,
        [account.id],
      );
    } finally {
      await client.end();
    }
    await eventually(async () => platform.requests().slice(seen).some(listing), (found) => found, 15_000);
    const deleted = dashboard(h.simulators.urls.platformA, platform.getApiKeys()[0], 'DELETE', `/v2/agents/${agent.platform_sync.platform_agent_id}`);
    await eventually(async () => platform.requests().slice(seen).some((r) => r.method === 'DELETE'), (found) => found, 5_000);
    platform.faults.delay(0);
    expect(await deleted).toBe(204);

    const after = await eventually(
      async () => (await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agent.id })).agent,
      (a) => a.platform_sync.last_drift?.repaired_at != null && a.platform_sync.state === 'synced',
    );
    // The deletion did land between the look's two listings.
    const order = platform.requests().slice(seen).filter((r) => listing(r) || r.method === 'DELETE').map((r) => `${r.method} ${r.path}`);
    expect(order.slice(0, 3)).toEqual([expect.stringMatching(/^GET /), `DELETE /v2/agents/${agent.platform_sync.platform_agent_id}`, expect.stringMatching(/^GET /)]);
    expect(after.platform_sync.last_drift).toMatchObject({ agent_missing: true, number: null, changed_fields: [] });
    expect(after.platform_sync.platform_agent_id).not.toBe(agent.platform_sync.platform_agent_id);
    expect(platform.phoneNumbers().find((n) => n.phone_number === agent.phone_number)).toMatchObject({ inbound_agent_id: after.platform_sync.platform_agent_id });
    const events = await syncEventTypes(h.db.url, agent.id);
    expect(events.filter((type) => type === 'AgentPlatformDriftFound')).toHaveLength(1);
    expect(events.filter((type) => type === 'AgentPlatformDriftRepaired')).toHaveLength(1);
  });
});
