/**
 * Test harness for integration tests: the real agents-service on a fresh
 * database and a NATS namespace of its own, and a client that speaks to it
 * the way the gateway does.
 */
import { NamespacedNatsClient, SecretBox, withoutProgress } from '@voice/service-kit';
import type { Logger } from 'pino';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';
import { IntegrationsRpc, type AccountContext, type ConfigureIntegrationRequest, type ServiceError, type VoicePlatform } from '@voice/contracts';
import { startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { randomBytes } from 'node:crypto';
import { firstValueFrom, timeout } from 'rxjs';
import { startAgentsService, type AgentsServiceOptions, type RunningAgentsService } from '../app.js';

export interface AgentsHarness {
  db: TestDatabase;
  namespace: string;
  service: RunningAgentsService;
  /** Both platform simulators, which the accounts of `account()` are integrated with. */
  simulators: RunningSimulators;
  /** A new account with an integration for each of its platforms, pointing at the simulators. */
  account(overrides?: Partial<AccountContext>): Promise<AccountContext>;
  /** Configures the account's integration for `platform` with the simulator's credentials (and the gateway's public address). */
  integrate(account: AccountContext, platform: VoicePlatform, publicUrl?: string): Promise<void>;
  /** Reply of a request, or rejects with the structured ServiceError. */
  rpc<T = any>(subject: string, payload: unknown, timeoutMs?: number): Promise<T>;
  /** Resolves to `{ ok: true, value }` or `{ ok: false, error }` so tests can count outcomes. */
  attempt<T = any>(subject: string, payload: unknown): Promise<{ ok: true; value: T } | { ok: false; error: ServiceError }>;
  close(): Promise<void>;
}

/** Tests recover from platform outages in well under a second instead of up to a minute. */
export const TEST_RETRY_POLICY = { baseMs: 100, capMs: 1_000, maxRetryAfterMs: 5_000 };

export async function startAgentsHarness(label: string, options: Partial<AgentsServiceOptions> = {}): Promise<AgentsHarness> {
  const db = await createTestDatabase(label);
  const namespace = randomNamespace();
  const simulatorKey = `sim_${randomBytes(8).toString('hex')}`;
  const simulators = await startSimulators({ apiKeys: [simulatorKey], webhookSecret: `whsec_${randomBytes(8).toString('hex')}` });
  const service = await startAgentsService({
    databaseUrl: db.url,
    natsUrl: testNatsUrl(),
    namespace,
    relayPollIntervalMs: 50,
    platformHttp: { allowPrivate: true, timeoutMs: 2_000 },
    platformSync: { pollIntervalMs: 100, retryPolicy: TEST_RETRY_POLICY },
    ...options,
  });
  const client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
  await client.connect();
  const rpc = <T>(subject: string, payload: unknown, timeoutMs = 10_000) => firstValueFrom(client.send<T>(subject, payload).pipe(withoutProgress<T>(), timeout(timeoutMs)));
  const integrate = async (account: AccountContext, platform: VoicePlatform, publicUrl = 'http://127.0.0.1:8080') => {
    const baseUrl = platform === 'platform_a' ? simulators.urls.platformA : simulators.urls.platformB;
    const request: ConfigureIntegrationRequest = {
      account,
      platform,
      body: { api_key: simulatorKey, webhook_secret: 'whsec_harness_secret', base_url: baseUrl },
      public_url: publicUrl,
    };
    await rpc(IntegrationsRpc.configure, request);
  };
  return {
    db,
    namespace,
    service,
    simulators,
    integrate,
    async account(overrides = {}) {
      const account = newAccount(overrides);
      for (const platform of account.voice_platforms as VoicePlatform[]) await integrate(account, platform);
      return account;
    },
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
      await simulators.stop();
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop();
    },
  };
}

export function newAccount(overrides: Partial<AccountContext> = {}): AccountContext {
  return { id: `acc_${randomBytes(6).toString('hex')}`, agent_limit: 50, voice_platforms: ['platform_a', 'platform_b'], ...overrides };
}

/** Distinct E.164 numbers `<prefix>0001`, `<prefix>0002`, … (prefix of 8 characters such as '+1646555'), for agents that import one. */
export function numberSequence(prefix: string): () => string {
  let issued = 0;
  return () => `${prefix}${String(++issued).padStart(4, '0')}`;
}

export interface AgentsReplicas {
  db: TestDatabase;
  namespace: string;
  simulators: RunningSimulators;
  /** The replicas, in the order of their loggers. */
  replicas: RunningAgentsService[];
  /** Speaks to the replicas' queue group as the gateway does. */
  client: NamespacedNatsClient;
  close(): Promise<void>;
}

/**
 * Several agents-service replicas on one database and one NATS namespace, sharing INTEGRATIONS_KEY (what one
 * sealed, the other opens), with `account` integrated with the simulators for each of `platforms`.
 */
export async function startAgentsReplicas(
  label: string,
  options: { account: AccountContext; platforms: VoicePlatform[]; loggers: Logger[]; platformSync: AgentsServiceOptions['platformSync'] },
): Promise<AgentsReplicas> {
  const db = await createTestDatabase(label);
  const namespace = randomNamespace();
  const secretBox = new SecretBox({ current: randomBytes(32) });
  const simulators = await startSimulators({ apiKeys: ['replica-key'] });
  const replicas = await Promise.all(
    options.loggers.map((logger) =>
      startAgentsService({
        databaseUrl: db.url, natsUrl: testNatsUrl(), namespace, relayPollIntervalMs: 50, logger, secretBox,
        platformHttp: { allowPrivate: true, timeoutMs: 2_000 },
        platformSync: options.platformSync,
      }),
    ),
  );
  const client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
  await client.connect();
  for (const platform of options.platforms) {
    const request: ConfigureIntegrationRequest = {
      account: options.account,
      platform,
      body: { api_key: 'replica-key', webhook_secret: 'replica-webhook-secret', base_url: platform === 'platform_a' ? simulators.urls.platformA : simulators.urls.platformB },
      public_url: 'http://127.0.0.1:3000',
    };
    await firstValueFrom(client.send(IntegrationsRpc.configure, request).pipe(withoutProgress(), timeout(10_000)));
  }
  return {
    db, namespace, simulators, replicas, client,
    async close() {
      await client.close();
      for (const replica of replicas) await replica.close();
      await simulators.stop();
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop();
    },
  };
}
