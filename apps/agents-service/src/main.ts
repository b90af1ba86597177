import 'reflect-metadata';
import { environment, runService, secretBoxFromEnv } from '@voice/service-kit';
import { platformHttpOptionsFrom } from '@voice/voice-platforms';
import { AGENTS_SERVICE_NAME, platformSyncSettingsFrom, startAgentsService } from './app.js';

runService(AGENTS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const databaseReadUrl = environment.databaseReadUrl(config);
  const databaseReadMaxLagMs = environment.databaseReadMaxLagMs(config);
  const natsUrl = environment.natsUrl(config);
  const jetstreamReplicas = environment.jetstreamReplicas(config);
  const namespace = environment.natsNamespace(config);
  const platformHttp = platformHttpOptionsFrom(config);
  const platformSync = platformSyncSettingsFrom(config);
  config.done();
  // INTEGRATIONS_KEY (and INTEGRATIONS_KEY_PREVIOUS during a rotation): required; a ConfigError names the problem.
  const secretBox = secretBoxFromEnv('INTEGRATIONS_KEY');
  const service = await startAgentsService({ databaseUrl, databaseMigrationUrl, databaseReadUrl, databaseReadMaxLagMs, natsUrl, jetstreamReplicas, namespace, secretBox, platformHttp, platformSync });
  return { service, details: { namespace: namespace ?? '' } };
});
