import 'reflect-metadata';
import { environment, runService } from '@voice/service-kit';
import { conversationsTuningFrom, SERVICE_NAME, startConversationsService } from './app.js';

runService(SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const databaseReadUrl = environment.databaseReadUrl(config);
  const databaseReadMaxLagMs = environment.databaseReadMaxLagMs(config);
  const natsUrl = environment.natsUrl(config);
  const jetstreamReplicas = environment.jetstreamReplicas(config);
  const namespace = environment.natsNamespace(config);
  const requireAccountSubject = environment.callEventsRequireAccountSubject(config);
  const tuning = conversationsTuningFrom(config);
  config.done();
  const service = await startConversationsService({ databaseUrl, databaseMigrationUrl, databaseReadUrl, databaseReadMaxLagMs, natsUrl, jetstreamReplicas, namespace, tuning, requireAccountSubject });
  return { service, details: { namespace: namespace ?? '', ...tuning, require_account_subject: requireAccountSubject } };
});
