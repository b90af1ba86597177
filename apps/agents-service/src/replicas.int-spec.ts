import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { createLogger, withoutProgress } from '@voice/service-kit';
import pg from 'pg';
import { firstValueFrom, timeout } from 'rxjs';
import { newAccount, startAgentsReplicas, type AgentsReplicas } from './testing/agents-harness.js';

/**
 * Operators scale agents-service by starting replicas: the NATS queue group must
 * hand each request to exactly one of them, and each replica's log lines for a
 * request must carry the request id the gateway sent.
 */
describe('agents-service replicas on one queue group', () => {
  const logs: Array<Array<Record<string, unknown>>> = [[], []];
  let set: AgentsReplicas;
  let db: AgentsReplicas['db'];
  let client: AgentsReplicas['client'];
  let simulators: AgentsReplicas['simulators'];
  const account = newAccount({ agent_limit: 200 });

  beforeAll(async () => {
    set = await startAgentsReplicas('replicas', {
      account,
      platforms: ['platform_a', 'platform_b'],
      loggers: logs.map((lines, i) => {
        const logger = createLogger(`agents-service-${i}`, { write: (line: string) => void lines.push(JSON.parse(line)) });
        logger.level = 'debug';
        return logger;
      }),
      // A short backoff: the outage below makes every create fail a few times before the platform is back.
      platformSync: { pollIntervalMs: 100, retryPolicy: { baseMs: 100, capMs: 1_000, maxRetryAfterMs: 5_000 } },
    });
    ({ db, client, simulators } = set);
  }, 30_000);

  afterAll(async () => {
    await set?.close();
  });

  it('shares the requests: each is handled by exactly one replica, and both take part', async () => {
    const requests = 24;
    const replies = await Promise.all(
      Array.from({ length: requests }, (_, i) => {
        const h = natsHeaders();
        h.set('x-request-id', `replica-req-${i}`);
        const record = new NatsRecordBuilder({ account, body: { name: `Replica agent ${i}`, voice_platform: 'platform_a' } }).setHeaders(h).build();
        return firstValueFrom(client.send<AgentReply>(AgentsRpc.create, record).pipe(withoutProgress<AgentReply>(), timeout(10_000)));
      }),
    );
    expect(new Set(replies.map((r) => r.agent.id)).size).toBe(requests);

    const conn = new pg.Client({ connectionString: db.url });
    await conn.connect();
    try {
      const { rows } = await conn.query(
        `SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams FROM agents.events WHERE type = 'AgentCreated'`,
      );
      expect(rows[0]).toEqual({ events: requests, streams: requests });
    } finally {
      await conn.end();
    }

    const handled = logs.map((lines) => lines.filter((l) => l.msg === 'message handled' && String(l.subject).endsWith(AgentsRpc.create)));
    expect(handled[0].length + handled[1].length).toBe(requests);
    expect(handled[0].length).toBeGreaterThan(0);
    expect(handled[1].length).toBeGreaterThan(0);
    const ids = handled.flat().map((l) => l.request_id).sort();
    expect(ids).toEqual(Array.from({ length: requests }, (_, i) => `replica-req-${i}`).sort());
    for (const line of handled.flat()) expect(line).toMatchObject({ level: 'debug', outcome: 'ok', duration_ms: expect.any(Number) });
  }, 30_000);

  it('share the platform sync without doing a step twice: a backlog left by an outage is synced once per agent', async () => {
    const platform = simulators.platformA;
    await platform.down('refuse');
    const agents = 16;
    const created = await Promise.all(
      Array.from({ length: agents }, (_, i) =>
        firstValueFrom(
          client.send<AgentReply>(AgentsRpc.create, { account, body: { name: `Backlog agent ${i}`, voice_platform: 'platform_a' } }).pipe(withoutProgress<AgentReply>(), timeout(20_000)),
        ),
      ),
    );
    // The platform refused connections: every create answered at once, pending, without a number yet.
    for (const { agent } of created) expect(agent).toMatchObject({ phone_number: null, platform_sync: { state: 'pending', platform_agent_id: null } });
    platform.clearRequests();
    await platform.up();

    const ids = created.map((r) => r.agent.id);
    const deadline = Date.now() + 60_000;
    let states: string[] = [];
    while (Date.now() < deadline) {
      const current = await Promise.all(
        ids.map((agent_id) => firstValueFrom(client.send<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id }).pipe(timeout(10_000)))),
      );
      states = current.map((r) => r.agent.platform_sync.state);
      if (states.every((s) => s === 'synced')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(states).toEqual(ids.map(() => 'synced'));

    const requests = platform.requests();
    const createsPerAgent = new Map<string, number>();
    for (const r of requests.filter((r) => r.method === 'POST' && r.path === '/v2/agents')) {
      const externalId = (r.body as { metadata: { external_id: string } }).metadata.external_id;
      createsPerAgent.set(externalId, (createsPerAgent.get(externalId) ?? 0) + 1);
    }
    expect([...createsPerAgent.keys()].sort()).toEqual([...ids].sort());
    expect([...createsPerAgent.values()].every((n) => n === 1)).toBe(true);
    // One number bought per agent, and the platform holds exactly one agent per external id.
    expect(requests.filter((r) => r.method === 'POST' && r.path === '/v2/phone-numbers')).toHaveLength(agents);
    const onPlatform = platform.agents().filter((a) => ids.includes(a.metadata.external_id));
    expect(onPlatform).toHaveLength(agents);
    // The backlog was the workers' (both replicas' took part), and no agent was synced by two runs.
    const syncedBy = logs.map((lines) => lines.filter((l) => l.msg === 'platform sync ran' && l.outcome === 'synced').map((l) => String(l.agent_id)));
    expect(syncedBy[0].length).toBeGreaterThan(0);
    expect(syncedBy[1].length).toBeGreaterThan(0);
    expect(new Set(syncedBy.flat()).size).toBe(syncedBy.flat().length);
  }, 90_000);
});
