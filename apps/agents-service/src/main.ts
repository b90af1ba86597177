import 'reflect-metadata';
import { environment, runService } from '@voice/service-kit';
import { AGENTS_SERVICE_NAME, startAgentsService } from './app.js';

runService(AGENTS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const natsUrl = environment.natsUrl(config);
  const namespace = environment.natsNamespace(config);
  config.done();
  const service = await startAgentsService({ databaseUrl, natsUrl, namespace });
  return { service, details: { namespace: namespace ?? '' } };
});
