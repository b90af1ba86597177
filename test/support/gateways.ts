import { randomBytes } from 'node:crypto';
import { startGateway, type RunningGateway } from '../../apps/api-gateway/src/app.js';
import type { RateLimitOptions } from '../../apps/api-gateway/src/rate-limits/rate-limits.rules.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { apiClient } from './http.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from './nats.js';

/**
 * Gateways only, sharing one database of their own (the routes such tests use — API keys, the admin
 * route, the call-event body check — need no service).
 */
export interface Gateways {
  urls: string[];
  adminToken: string;
  db: TestDatabase;
  createAccount(plan?: string): Promise<{ id: string; api_key: string }>;
  close(): Promise<void>;
}

export async function startGateways(count: number, rateLimits?: RateLimitOptions): Promise<Gateways> {
  const db = await createTestDatabase('ratelimits');
  const namespace = randomNamespace();
  const adminToken = `admin_${randomBytes(8).toString('hex')}`;
  const running: RunningGateway[] = [];
  for (let i = 0; i < count; i++) {
    running.push(await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: db.url, natsUrl: testNatsUrl(), namespace, adminToken, rpcTimeoutMs: 1000, rateLimits }));
  }
  const admin = apiClient(running[0].url, adminToken);
  let accounts = 0;
  return {
    urls: running.map((g) => g.url),
    adminToken,
    db,
    async createAccount(plan = 'starter') {
      accounts += 1;
      const res = await admin.post('/v1/admin/accounts', { name: `Limited ${accounts}`, plan, agent_limit: 5 });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${res.text}`);
      return res.body.data;
    },
    async close() {
      for (const g of running) await g.close().catch(() => undefined);
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop().catch(() => undefined);
    },
  };
}

