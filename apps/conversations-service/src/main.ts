import 'reflect-metadata';
import { runService } from '@voice/service-kit';
import { SERVICE_NAME, startConversationsService } from './app.js';

runService(SERVICE_NAME, async (config) => {
  const databaseUrl = config.url('DATABASE_URL', ['postgres', 'postgresql']);
  const natsUrl = config.url('NATS_URL', ['nats', 'tls']);
  const namespace = config.optionalString('NATS_NAMESPACE');
  const ackWaitMs = config.int('CALL_EVENTS_ACK_WAIT_MS', 30_000, { min: 1_000 });
  const batchSize = config.int('CALL_EVENTS_BATCH_SIZE', 256, { min: 1, max: 5_000 });
  config.done();
  const service = await startConversationsService({ databaseUrl, natsUrl, namespace, tuning: { ackWaitMs, batchSize } });
  return { service, details: { namespace: namespace ?? '' } };
});
