import 'reflect-metadata';
import { environment, runService } from '@voice/service-kit';
import { DEFAULT_RPC_TIMEOUT_MS, startGateway } from './app.js';

runService('api-gateway', async (config) => {
  const port = environment.port(config);
  const host = environment.host(config, '0.0.0.0');
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const natsUrl = environment.natsUrl(config);
  const jetstreamReplicas = environment.jetstreamReplicas(config);
  const namespace = environment.natsNamespace(config);
  const adminToken = environment.adminToken(config);
  const rpcTimeoutMs = environment.rpcTimeoutMs(config) ?? DEFAULT_RPC_TIMEOUT_MS;
  const publicUrl = environment.publicUrl(config);
  const webhookRetentionDays = environment.webhookRetentionDays(config);
  const callEventsMaxAgeMs = environment.callEventsMaxAgeMs(config);
  const rateLimits = environment.rateLimits(config);
  const conversationStreams = environment.conversationStreams(config);
  config.done();
  const service = await startGateway({
    port, host, databaseUrl, databaseMigrationUrl, natsUrl, jetstreamReplicas, namespace, adminToken, rpcTimeoutMs, publicUrl, webhookRetentionDays, callEventsMaxAgeMs, rateLimits,
    conversationStreams,
  });
  return {
    service,
    details: {
      url: service.url,
      rpc_timeout_ms: rpcTimeoutMs,
      admin_routes: adminToken ? 'enabled' : 'disabled (ADMIN_TOKEN unset: POST /v1/admin/accounts answers 404)',
    },
  };
});
