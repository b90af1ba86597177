import type { ConfigReader } from '@voice/service-kit';
import { DEFAULT_DISABLE_AFTER_FAILED_DELIVERIES, DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './deliver-events/delivery-schedule.rules.js';
import { DEFAULT_DELIVERY_WORKER, type DeliveryWorkerSettings } from './deliver-events/delivery.worker.js';

const SCHEDULE = /^\s*\d{1,10}(\s*,\s*\d{1,10}){0,49}\s*$/;

/**
 * The settings of notifications-service from the environment, for main.ts and `npm start`'s one-process mode:
 * ALLOW_PRIVATE_WEBHOOK_URLS (`allowPrivateDefault` when unset), WEBHOOK_RETRY_SCHEDULE_MS,
 * WEBHOOK_DELIVERY_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY, WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES, PUBLIC_URL (the root of
 * conversation.ended's transcript_url). Problems are reported by `config.done()`.
 */
export function notificationsSettingsFrom(
  config: ConfigReader,
  allowPrivateDefault = false,
): { allowPrivateUrls: boolean; delivery: DeliveryWorkerSettings; disableAfterFailedDeliveries: number; publicBaseUrl?: string } {
  const allowPrivateUrls = config.flag('ALLOW_PRIVATE_WEBHOOK_URLS', allowPrivateDefault);
  const scheduleText = config.matching('WEBHOOK_RETRY_SCHEDULE_MS', SCHEDULE, 'comma-separated delays in milliseconds, e.g. 0,1000,2000');
  const schedule = scheduleText === undefined ? DEFAULT_RETRY_SCHEDULE_MS : parseRetrySchedule(scheduleText);
  const publicBaseUrl = config.optionalUrl('PUBLIC_URL', ['http', 'https']);
  return {
    allowPrivateUrls,
    ...(publicBaseUrl !== undefined ? { publicBaseUrl } : {}),
    disableAfterFailedDeliveries: config.int('WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES', DEFAULT_DISABLE_AFTER_FAILED_DELIVERIES, { min: 1, max: 1_000_000 }),
    delivery: {
      ...DEFAULT_DELIVERY_WORKER,
      retryScheduleMs: typeof schedule === 'string' ? DEFAULT_RETRY_SCHEDULE_MS : schedule,
      concurrency: config.int('WEBHOOK_DELIVERY_CONCURRENCY', DEFAULT_DELIVERY_WORKER.concurrency, { min: 1, max: 1_000 }),
      perEndpointConcurrency: config.int('WEBHOOK_ENDPOINT_CONCURRENCY', DEFAULT_DELIVERY_WORKER.perEndpointConcurrency, { min: 1, max: 100 }),
    },
  };
}
