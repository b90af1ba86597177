import { randomBytes } from 'node:crypto';
import { InProcessBus, InProcessStreams, SecretBox } from '@voice/service-kit';
import type { Logger } from 'pino';
import { startAgentsService } from '../../apps/agents-service/src/app.js';
import { startConversationsService } from '../../apps/conversations-service/src/app.js';
import { startNotificationsService } from '../../apps/notifications-service/src/app.js';
import { startGateway } from '../../apps/api-gateway/src/app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { apiClient, type ApiClient } from './http.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from './nats.js';
import { configureIntegrations, startTestPlatforms, type TestPlatforms } from './platforms.js';

/**
 * What tests give agents-service for integrations: a fresh INTEGRATIONS_KEY and, like `npm start`,
 * ALLOW_PRIVATE_PLATFORM_URLS=true (the platform simulators listen on 127.0.0.1). A platform call's deadline
 * (PLATFORM_REQUEST_TIMEOUT_MS) is 2 s, so a test of a platform that never answers is quick; a test of a slow one
 * gives a deadline its delays stay well within on a loaded machine.
 */
export function testIntegrationsOptions(platformCallTimeoutMs = 2000) {
  return {
    secretBox: new SecretBox({ current: randomBytes(32) }),
    platformHttp: { allowPrivate: true, timeoutMs: platformCallTimeoutMs },
    platformSync: { pollIntervalMs: 100, retryPolicy: { baseMs: 100, capMs: 1_000, maxRetryAfterMs: 5_000 } },
  };
}

/**
 * What tests give notifications-service: like `npm start`, ALLOW_PRIVATE_WEBHOOK_URLS=true (receivers listen on
 * 127.0.0.1), a quick worker poll, a short rotation overlap and a short retry schedule (WEBHOOK_RETRY_SCHEDULE_MS) unless a test sets its own.
 */
export function testNotificationsOptions(over: { retryScheduleMs?: number[]; disableAfterFailedDeliveries?: number } = {}) {
  return {
    secretBox: new SecretBox({ current: randomBytes(32) }),
    allowPrivateUrls: true,
    delivery: { pollIntervalMs: 50, retryScheduleMs: over.retryScheduleMs ?? [0, 200, 400] },
    // A rotated-out secret signs for 8 s instead of 24 h, so a test sees the overlap end (and a delivery made on a
    // loaded machine, seconds after the rotation, still falls inside it).
    secretOverlapMs: 8_000,
    ...(over.disableAfterFailedDeliveries ? { disableAfterFailedDeliveries: over.disableAfterFailedDeliveries } : {}),
  };
}

export interface TestAccount {
  id: string;
  name: string;
  plan: string;
  agent_limit: number;
  voice_platforms: string[];
  api_key: string;
  /** Client authenticated with the account's all-scopes key. */
  api: ApiClient;
}

export interface RunningSystem {
  baseUrl: string;
  databaseUrl: string;
  natsUrl: string;
  namespace: string;
  adminToken: string;
  /** Unauthenticated client; use `client(key)` for a specific key. */
  anonymous: ApiClient;
  client(apiKey: string): ApiClient;
  /** The voice platforms (both simulators) every account of this system is integrated with. */
  platforms: TestPlatforms;
  /**
   * A new account with an all-scopes key. `integrations` (default true): an integration for each of its
   * voice_platforms, pointing at the simulators, so agents can be created on them.
   */
  createAccount(
    input?: Partial<{ name: string; plan: string; agent_limit: number; voice_platforms: string[]; integrations: boolean }>,
  ): Promise<TestAccount>;
  /** Stop one service (to test the gateway's behaviour when it is down). */
  stopService(name: 'agents' | 'conversations' | 'notifications'): Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole service as a user meets it: gateway over HTTP on an ephemeral port,
 * both services over the real NATS server, all on a fresh PostgreSQL database
 * and a NATS namespace of their own.
 */
export async function startSystem(
  options: {
    rpcTimeoutMs?: number;
    logger?: Logger;
    /** A NATS server of the test's own, one URL (credentials) per app; its streams die with it. */
    nats?: { agents: string; conversations: string; gateway: string; namespace: string; notifications?: string };
    /** WEBHOOK_RETRY_SCHEDULE_MS of notifications-service (testNotificationsOptions' short one by default). */
    webhookRetryScheduleMs?: number[];
    /** WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES of notifications-service (1,000 by default). */
    webhookDisableAfter?: number;
    /** PLATFORM_REQUEST_TIMEOUT_MS of agents-service (testIntegrationsOptions' 2 s by default). */
    platformCallTimeoutMs?: number;
    /** conversations-service's tuning (a short retention sweep, say). */
    conversationsTuning?: Parameters<typeof startConversationsService>[0]['tuning'];
    /**
     * A database of the test's own instead of a fresh one on the shared server (left as it is at close), and a
     * streaming replica of it for agents-service's and conversations-service's reads (DATABASE_READ_URL).
     */
    database?: { url: string; readUrl?: string; readMaxLagMs?: number };
  } = {},
): Promise<RunningSystem> {
  const db: Pick<TestDatabase, 'url' | 'drop'> = options.database ? { url: options.database.url, drop: async () => undefined } : await createTestDatabase('e2e');
  const reads = { databaseReadUrl: options.database?.readUrl, databaseReadMaxLagMs: options.database?.readMaxLagMs };
  const namespace = options.nats?.namespace ?? randomNamespace();
  const natsUrl = options.nats?.gateway ?? testNatsUrl();
  const adminToken = `admin_${randomBytes(12).toString('hex')}`;
  const services: Partial<Record<'agents' | 'conversations' | 'notifications', { close(): Promise<void> }>> = {};
  const logger = options.logger ? { logger: options.logger } : {};
  const platforms = await startTestPlatforms();
  services.agents = await startAgentsService({ databaseUrl: db.url, ...reads, natsUrl: options.nats?.agents ?? natsUrl, namespace, ...testIntegrationsOptions(options.platformCallTimeoutMs), ...logger });
  services.conversations = await startConversationsService({ databaseUrl: db.url, ...reads, natsUrl: options.nats?.conversations ?? natsUrl, namespace, tuning: options.conversationsTuning });
  services.notifications = await startNotificationsService({
    databaseUrl: db.url, natsUrl: options.nats?.notifications ?? natsUrl, namespace, ...testNotificationsOptions({ retryScheduleMs: options.webhookRetryScheduleMs, disableAfterFailedDeliveries: options.webhookDisableAfter }), ...logger,
  });
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    natsUrl,
    namespace,
    adminToken,
    rpcTimeoutMs: options.rpcTimeoutMs ?? 3000,
    ...logger,
  });
  const baseUrl = gateway.url;
  const admin = apiClient(baseUrl, adminToken);
  let accounts = 0;

  return {
    baseUrl,
    databaseUrl: db.url,
    natsUrl,
    namespace,
    adminToken,
    anonymous: apiClient(baseUrl),
    client: (key) => apiClient(baseUrl, key),
    platforms,
    async createAccount(input = {}) {
      accounts += 1;
      const voicePlatforms = input.voice_platforms ?? ['platform_a', 'platform_b'];
      const res = await admin.post('/v1/admin/accounts', {
        name: input.name ?? `Account ${accounts}`,
        plan: input.plan ?? 'starter',
        agent_limit: input.agent_limit ?? 50,
        voice_platforms: voicePlatforms,
      });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${res.text}`);
      const api = apiClient(baseUrl, res.body.data.api_key);
      if (input.integrations !== false) await configureIntegrations(api, platforms, voicePlatforms);
      return { ...res.body.data, api };
    },
    async stopService(name) {
      await services[name]?.close();
      delete services[name];
    },
    async close() {
      await gateway.close().catch(() => undefined);
      for (const s of Object.values(services)) await s?.close().catch(() => undefined);
      await platforms.stop().catch(() => undefined);
      if (!options.nats) await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop().catch(() => undefined);
    },
  };
}

export interface LocalSystem {
  baseUrl: string;
  adminToken: string;
  db: TestDatabase;
  /** The simulators accounts are integrated with (configureIntegrations). */
  platforms: TestPlatforms;
  close(): Promise<void>;
}

/**
 * One-process mode (what `npm start` does without NATS_URL): the three apps over the in-process bus
 * and streams, on a fresh database. No NATS server is involved.
 */
export async function startLocalSystem(
  label = 'local',
  gatewayOptions: Partial<Parameters<typeof startGateway>[0]> = {},
  agentsOptions: { platformCallTimeoutMs?: number } = {},
): Promise<LocalSystem> {
  const db = await createTestDatabase(label);
  const closers: Array<() => Promise<void>> = [];
  const adminToken = `admin_${randomBytes(8).toString('hex')}`;
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne().catch(() => undefined);
    await db.drop().catch(() => undefined);
  };
  try {
    const platforms = await startTestPlatforms();
    closers.push(() => platforms.stop());
    const local = { rpc: new InProcessBus(), streams: new InProcessStreams() };
    const agents = await startAgentsService({ databaseUrl: db.url, local, ...testIntegrationsOptions(agentsOptions.platformCallTimeoutMs) });
    closers.push(() => agents.close());
    const conversations = await startConversationsService({ databaseUrl: db.url, local });
    closers.push(() => conversations.close());
    const notifications = await startNotificationsService({ databaseUrl: db.url, local, ...testNotificationsOptions() });
    closers.push(() => notifications.close());
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: db.url, local, adminToken, rpcTimeoutMs: 2000, ...gatewayOptions });
    closers.push(() => gateway.close());
    return { baseUrl: gateway.url, adminToken, db, platforms, close };
  } catch (err) {
    await close();
    throw err;
  }
}
