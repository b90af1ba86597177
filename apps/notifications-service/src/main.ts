import 'reflect-metadata';
import { ConfigError, environment, runService, secretBoxFromEnv } from '@voice/service-kit';
import { NOTIFICATIONS_SERVICE_NAME, startNotificationsService } from './app.js';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './deliver-events/delivery-schedule.rules.js';
import { DEFAULT_DELIVERY_WORKER } from './deliver-events/delivery.worker.js';

runService(NOTIFICATIONS_SERVICE_NAME, async (config) => {
  const databaseUrl = environment.databaseUrl(config);
  const databaseMigrationUrl = environment.databaseMigrationUrl(config);
  const natsUrl = environment.natsUrl(config);
  const namespace = environment.natsNamespace(config);
  const allowPrivateUrls = config.flag('ALLOW_PRIVATE_WEBHOOK_URLS', false);
  const scheduleText = config.optionalString('WEBHOOK_RETRY_SCHEDULE_MS');
  const concurrency = config.int('WEBHOOK_DELIVERY_CONCURRENCY', DEFAULT_DELIVERY_WORKER.concurrency, { min: 1, max: 1_000 });
  const perEndpointConcurrency = config.int('WEBHOOK_ENDPOINT_CONCURRENCY', DEFAULT_DELIVERY_WORKER.perEndpointConcurrency, { min: 1, max: 100 });
  config.done();
  const schedule = scheduleText === undefined ? DEFAULT_RETRY_SCHEDULE_MS : parseRetrySchedule(scheduleText);
  if (typeof schedule === 'string') throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE_MS ${schedule}`);
  // The deployment's secret-box key (and INTEGRATIONS_KEY_PREVIOUS during a rotation) seals the signing secrets.
  const secretBox = secretBoxFromEnv('INTEGRATIONS_KEY');
  const service = await startNotificationsService({
    databaseUrl, databaseMigrationUrl, natsUrl, namespace, secretBox, allowPrivateUrls, delivery: { retryScheduleMs: schedule, concurrency, perEndpointConcurrency },
  });
  return { service, details: { namespace: namespace ?? '' } };
});
