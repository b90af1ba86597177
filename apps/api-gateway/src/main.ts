import 'reflect-metadata';
import { runService } from '@voice/service-kit';
import { DEFAULT_RPC_TIMEOUT_MS, startGateway } from './app.js';

runService('api-gateway', async (config) => {
  const port = config.int('PORT', 3000, { min: 0, max: 65535 });
  const host = config.string('HOST', '0.0.0.0');
  const databaseUrl = config.url('DATABASE_URL', ['postgres', 'postgresql']);
  const natsUrl = config.url('NATS_URL', ['nats', 'tls', 'ws', 'wss']);
  const namespace = config.optionalString('NATS_NAMESPACE');
  const adminToken = config.optionalString('ADMIN_TOKEN');
  const rpcTimeoutMs = config.int('RPC_TIMEOUT_MS', DEFAULT_RPC_TIMEOUT_MS, { min: 100, max: 120_000 });
  config.done();
  const service = await startGateway({ port, host, databaseUrl, natsUrl, namespace, adminToken, rpcTimeoutMs });
  return { service, details: { url: service.url, admin_routes: Boolean(adminToken) } };
});
