import 'reflect-metadata';
import { environment, runService, secretBoxFromEnv } from '@voice/service-kit';
import { NOTIFICATIONS_SERVICE_NAME, startNotificationsService } from './app.js';
import { notificationsSettingsFrom } from './notifications.settings.js';

runService(NOTIFICATIONS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const natsUrl = environment.natsUrl(config);
  const jetstreamReplicas = environment.jetstreamReplicas(config);
  const namespace = environment.natsNamespace(config);
  const { allowPrivateUrls, delivery, disableAfterFailedDeliveries, publicBaseUrl } = notificationsSettingsFrom(config);
  config.done();
  // The deployment's secret-box key (and INTEGRATIONS_KEY_PREVIOUS during a rotation) seals the signing secrets.
  const secretBox = secretBoxFromEnv('INTEGRATIONS_KEY');
  const service = await startNotificationsService({ databaseUrl, databaseMigrationUrl, natsUrl, jetstreamReplicas, namespace, secretBox, allowPrivateUrls, delivery, disableAfterFailedDeliveries, publicBaseUrl,
  });
  return { service, details: { namespace: namespace ?? '' } };
});
