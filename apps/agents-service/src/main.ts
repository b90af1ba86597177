import 'reflect-metadata';
import { environment, runService, secretBoxFromEnv } from '@voice/service-kit';
import { platformHttpOptionsFrom } from './platforms/voice-platform-adapters.js';
import { AGENTS_SERVICE_NAME, startAgentsService } from './app.js';

runService(AGENTS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const natsUrl = environment.natsUrl(config);
  const namespace = environment.natsNamespace(config);
  const platformHttp = platformHttpOptionsFrom(config);
  config.done();
  // INTEGRATIONS_KEY (and INTEGRATIONS_KEY_PREVIOUS during a rotation): required; a ConfigError names the problem.
  const secretBox = secretBoxFromEnv('INTEGRATIONS_KEY');
  const service = await startAgentsService({ databaseUrl, natsUrl, namespace, secretBox, platformHttp });
  return { service, details: { namespace: namespace ?? '' } };
});
