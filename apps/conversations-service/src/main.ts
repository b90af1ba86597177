import 'reflect-metadata';
import { environment, runService } from '@voice/service-kit';
import { SERVICE_NAME, startConversationsService } from './app.js';

runService(SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const natsUrl = environment.natsUrl(config);
  const namespace = environment.natsNamespace(config);
  const ackWaitMs = environment.callEventsAckWaitMs(config);
  const batchSize = environment.callEventsBatchSize(config);
  config.done();
  // Unset tunables are left out, so the service's defaults apply.
  const tuning = { ...(ackWaitMs !== undefined ? { ackWaitMs } : {}), ...(batchSize !== undefined ? { batchSize } : {}) };
  const service = await startConversationsService({ databaseUrl, natsUrl, namespace, tuning });
  return { service, details: { namespace: namespace ?? '', ...tuning } };
});
