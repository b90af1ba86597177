import 'reflect-metadata';
import { environment, runService, secretBoxFromEnv } from '@voice/service-kit';
import { platformHttpOptionsFrom } from '@voice/voice-platforms';
import { AGENTS_SERVICE_NAME, DEFAULT_PLATFORM_SYNC, startAgentsService } from './app.js';

runService(AGENTS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const natsUrl = environment.natsUrl(config);
  const namespace = environment.natsNamespace(config);
  const platformHttp = platformHttpOptionsFrom(config);
  const platformSync = {
    inlineBoundMs: config.int('PLATFORM_SYNC_INLINE_MS', DEFAULT_PLATFORM_SYNC.inlineBoundMs, { min: 0, max: 10_000 }),
    concurrency: config.int('PLATFORM_SYNC_CONCURRENCY', DEFAULT_PLATFORM_SYNC.concurrency, { min: 1, max: 32 }),
    pollIntervalMs: config.int('PLATFORM_SYNC_POLL_MS', DEFAULT_PLATFORM_SYNC.pollIntervalMs, { min: 50, max: 60_000 }),
    // 0 turns the reconciliation off (a platform edited behind our back then stays so until the agent changes).
    reconcileIntervalMs: config.int('PLATFORM_RECONCILE_INTERVAL_MS', DEFAULT_PLATFORM_SYNC.reconcileIntervalMs, { min: 0, max: 86_400_000 }),
  };
  config.done();
  // INTEGRATIONS_KEY (and INTEGRATIONS_KEY_PREVIOUS during a rotation): required; a ConfigError names the problem.
  const secretBox = secretBoxFromEnv('INTEGRATIONS_KEY');
  const service = await startAgentsService({ databaseUrl, databaseMigrationUrl, natsUrl, namespace, secretBox, platformHttp, platformSync });
  return { service, details: { namespace: namespace ?? '' } };
});
