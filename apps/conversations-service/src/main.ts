import 'reflect-metadata';
import { environment, runService } from '@voice/service-kit';
import { SERVICE_NAME, startConversationsService } from './app.js';

runService(SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const natsUrl = environment.natsUrl(config);
  const jetstreamReplicas = environment.jetstreamReplicas(config);
  const namespace = environment.natsNamespace(config);
  const ackWaitMs = environment.callEventsAckWaitMs(config);
  const batchSize = environment.callEventsBatchSize(config);
  const requireAccountSubject = environment.callEventsRequireAccountSubject(config);
  const statsMemoryMinRows = environment.statsMemoryMinRows(config);
  const statsMemoryMaxRows = environment.statsMemoryMaxRows(config);
  const retentionSweepMs = environment.retentionSweepIntervalMs(config);
  const dataRequestLeaseMs = environment.dataRequestLeaseMs(config);
  config.done();
  // Unset tunables are left out, so the service's defaults apply.
  const tuning = Object.fromEntries(Object.entries({ ackWaitMs, batchSize, statsMemoryMinRows, statsMemoryMaxRows, retentionSweepMs, dataRequestLeaseMs }).filter(([, value]) => value !== undefined));
  const service = await startConversationsService({ databaseUrl, databaseMigrationUrl, natsUrl, jetstreamReplicas, namespace, tuning, requireAccountSubject });
  return { service, details: { namespace: namespace ?? '', ...tuning, require_account_subject: requireAccountSubject } };
});
