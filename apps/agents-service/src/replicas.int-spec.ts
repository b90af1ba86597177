import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { createLogger, NamespacedNatsClient } from '@voice/service-kit';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import { firstValueFrom, timeout } from 'rxjs';
import { startAgentsService, type RunningAgentsService } from './app.js';
import { newAccount } from './testing/agents-harness.js';

/**
 * Operators scale agents-service by starting replicas: the NATS queue group must
 * hand each request to exactly one of them, and each replica's log lines for a
 * request must carry the request id the gateway sent.
 */
describe('agents-service replicas on one queue group', () => {
  const namespace = randomNamespace();
  const logs: Array<Array<Record<string, unknown>>> = [[], []];
  let db: TestDatabase;
  let replicas: RunningAgentsService[] = [];
  let client: NamespacedNatsClient;

  beforeAll(async () => {
    db = await createTestDatabase('replicas');
    replicas = await Promise.all(
      logs.map((lines, i) => {
        const logger = createLogger(`agents-service-${i}`, { write: (line: string) => void lines.push(JSON.parse(line)) });
        logger.level = 'debug';
        return startAgentsService({ databaseUrl: db.url, natsUrl: testNatsUrl(), namespace, relayPollIntervalMs: 50, logger });
      }),
    );
    client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
    await client.connect();
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    for (const replica of replicas) await replica.close();
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop();
  });

  it('shares the requests: each is handled by exactly one replica, and both take part', async () => {
    const account = newAccount({ agent_limit: 100 });
    const requests = 24;
    const replies = await Promise.all(
      Array.from({ length: requests }, (_, i) => {
        const h = natsHeaders();
        h.set('x-request-id', `replica-req-${i}`);
        const record = new NatsRecordBuilder({ account, body: { name: `Replica agent ${i}`, voice_platform: 'platform_a' } }).setHeaders(h).build();
        return firstValueFrom(client.send<AgentReply>(AgentsRpc.create, record).pipe(timeout(10_000)));
      }),
    );
    expect(new Set(replies.map((r) => r.agent.id)).size).toBe(requests);

    const conn = new pg.Client({ connectionString: db.url });
    await conn.connect();
    try {
      const { rows } = await conn.query(`SELECT count(*)::int AS events, count(DISTINCT stream_id)::int AS streams FROM agents.events`);
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
});
