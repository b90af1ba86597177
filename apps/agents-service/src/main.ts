import 'reflect-metadata';
import { runService } from '@voice/service-kit';
import { AGENTS_SERVICE_NAME, startAgentsService } from './app.js';

runService(AGENTS_SERVICE_NAME, async (config) => {
  const databaseUrl = config.url('DATABASE_URL', ['postgres', 'postgresql']);
  const natsUrl = config.url('NATS_URL', ['nats', 'tls']);
  const namespace = config.optionalString('NATS_NAMESPACE');
  config.done();
  const service = await startAgentsService({ databaseUrl, natsUrl, namespace });
  return { service, details: { namespace: namespace ?? '' } };
});
