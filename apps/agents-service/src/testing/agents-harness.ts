/**
 * Test harness for integration tests: the real agents-service on a fresh
 * database and a NATS namespace of its own, and a client that speaks to it
 * the way the gateway does.
 */
import { NamespacedNatsClient } from '@voice/service-kit';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';
import type { AccountContext, ServiceError } from '@voice/contracts';
import { randomBytes } from 'node:crypto';
import { firstValueFrom, timeout } from 'rxjs';
import { startAgentsService, type AgentsServiceOptions, type RunningAgentsService } from '../app.js';

export interface AgentsHarness {
  db: TestDatabase;
  namespace: string;
  service: RunningAgentsService;
  /** Reply of a request, or rejects with the structured ServiceError. */
  rpc<T = any>(subject: string, payload: unknown, timeoutMs?: number): Promise<T>;
  /** Resolves to `{ ok: true, value }` or `{ ok: false, error }` so tests can count outcomes. */
  attempt<T = any>(subject: string, payload: unknown): Promise<{ ok: true; value: T } | { ok: false; error: ServiceError }>;
  close(): Promise<void>;
}

export async function startAgentsHarness(label: string, options: Partial<AgentsServiceOptions> = {}): Promise<AgentsHarness> {
  const db = await createTestDatabase(label);
  const namespace = randomNamespace();
  const service = await startAgentsService({ databaseUrl: db.url, natsUrl: testNatsUrl(), namespace, relayPollIntervalMs: 50, ...options });
  const client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
  await client.connect();
  const rpc = <T>(subject: string, payload: unknown, timeoutMs = 10_000) => firstValueFrom(client.send<T>(subject, payload).pipe(timeout(timeoutMs)));
  return {
    db,
    namespace,
    service,
    rpc,
    async attempt(subject, payload) {
      try {
        return { ok: true, value: await rpc(subject, payload) };
      } catch (error) {
        return { ok: false, error: error as ServiceError };
      }
    },
    async close() {
      await client.close();
      await service.close();
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop();
    },
  };
}

export function newAccount(overrides: Partial<AccountContext> = {}): AccountContext {
  return { id: `acc_${randomBytes(6).toString('hex')}`, agent_limit: 50, voice_platforms: ['platform_a', 'platform_b'], ...overrides };
}
