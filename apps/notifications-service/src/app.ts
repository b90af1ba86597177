import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { CustomStrategy } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  closeNats, connectNats, createLogger, InProcessServer, JetStreamStreams, NamespacedNatsServer, openDatabase, PinoNestLogger, RequestContextInterceptor,
  SecretBox, ServiceErrorFilter, serviceTransportOptions, type InProcessBus, type MessageStreams,
} from '@voice/service-kit';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from './database/notifications-database.js';
import { DeliveriesStore } from './deliver-events/deliveries.store.js';
import { DEFAULT_DISABLE_AFTER_FAILED_DELIVERIES, DEFAULT_RETRY_SCHEDULE_MS } from './deliver-events/delivery-schedule.rules.js';
import { DEFAULT_DELIVERY_WORKER, DeliveryWorker, type DeliveryWorkerSettings } from './deliver-events/delivery.worker.js';
import { WebhookSender } from './deliver-events/webhook-sender.js';
import { EraseConversationsConsumer } from './erase-conversations/erase-conversations.consumer.js';
import { EventsRetention } from './events-retention/events-retention.js';
import { NotificationsModule } from './notifications.module.js';
import { RecordEventsStore } from './record-events/record-events.store.js';
import { SourceEventsConsumers } from './record-events/source-events.consumers.js';
import { DEFAULT_SECRET_OVERLAP_MS } from './webhook-endpoints/webhook-endpoints.settings.js';

export const NOTIFICATIONS_SERVICE_NAME = 'notifications-service';

export interface NotificationsServiceOptions {
  databaseUrl: string;
  /** DATABASE_MIGRATION_URL: the schema owner, migrations only (service-kit openDatabase). */
  databaseMigrationUrl?: string;
  /** Required unless `local` is given. */
  natsUrl?: string;
  /** Servers holding each JetStream stream and durable consumer it creates (JETSTREAM_REPLICAS); 1 when unset. */
  jetstreamReplicas?: number;
  namespace?: string;
  /** One-process mode (no NATS server): the in-process bus and streams shared with the other apps. */
  local?: { rpc: InProcessBus; streams: MessageStreams };
  /**
   * Seals the endpoints' signing secrets (INTEGRATIONS_KEY, the deployment's secret-box key). When absent
   * (tests that do not care) a random key for this process only is used.
   */
  secretBox?: SecretBox;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: http, loopback and private addresses may receive deliveries. */
  allowPrivateUrls?: boolean;
  /** WEBHOOK_RETRY_SCHEDULE_MS and the worker's concurrency and poll interval. */
  delivery?: Partial<DeliveryWorkerSettings>;
  /** WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES (1,000): an endpoint is disabled after this many failed deliveries in a row. */
  disableAfterFailedDeliveries?: number;
  /** How long a rotated-out secret still signs (24 h); tests shorten it. */
  secretOverlapMs?: number;
  /** The attempt deadline (15 s); tests shorten it. */
  deliveryTimeoutMs?: number;
  /** PUBLIC_URL: the API's public address, the root of conversation.ended's `transcript_url`; the bare path when unset. */
  publicBaseUrl?: string;
  /** Consumer settings; tests shorten ack_wait to see redeliveries quickly. */
  consumerAckWaitMs?: number;
  logger?: Logger;
}

export interface RunningNotificationsService {
  close(): Promise<void>;
}

/**
 * Migrates the `notifications` schema, serves the webhook endpoints RPCs (queue group `notifications-service`,
 * so replicas share them), records events from the agent events and conversation changes streams, and
 * delivers them — or, with `local`, over the in-process bus and streams of one-process mode.
 */
export async function startNotificationsService(options: NotificationsServiceOptions): Promise<RunningNotificationsService> {
  const namespace = options.namespace ?? '';
  const logger = options.logger ?? createLogger(NOTIFICATIONS_SERVICE_NAME);
  if (!options.local && !options.natsUrl) throw new Error('startNotificationsService needs natsUrl (or local for one-process mode)');
  if (!options.secretBox) logger.warn('no INTEGRATIONS_KEY given: webhook signing secrets are sealed with a key that dies with this process');
  const secretBox = options.secretBox ?? new SecretBox({ current: randomBytes(32) });
  const allowPrivate = options.allowPrivateUrls ?? false;
  const delivery: DeliveryWorkerSettings = { ...DEFAULT_DELIVERY_WORKER, retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS, ...options.delivery };
  const dataSource = await openDatabase({
    url: options.databaseUrl, migrationUrl: options.databaseMigrationUrl, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations,
    applicationName: NOTIFICATIONS_SERVICE_NAME,
  });
  let nc: NatsConnection | undefined;
  let app: INestMicroservice | undefined;
  let consumers: SourceEventsConsumers | undefined;
  let worker: DeliveryWorker | undefined;
  let retention: EventsRetention | undefined;
  let erasures: EraseConversationsConsumer | undefined;

  const close = async () => {
    retention?.stop();
    await erasures?.stop();
    await consumers?.stop();
    await worker?.stop();
    await app?.close().catch((err: unknown) => logger.error({ err }, 'closing the NATS server failed'));
    await closeNats(nc);
    if (dataSource.isInitialized) await dataSource.destroy();
  };

  try {
    let streams: MessageStreams;
    let strategy: CustomStrategy['strategy'];
    if (options.local) {
      streams = options.local.streams;
      strategy = new InProcessServer(options.local.rpc);
    } else {
      nc = await connectNats(options.natsUrl!, NOTIFICATIONS_SERVICE_NAME);
      streams = new JetStreamStreams(nc, { replicas: options.jetstreamReplicas });
      strategy = new NamespacedNatsServer(namespace, serviceTransportOptions(NOTIFICATIONS_SERVICE_NAME, options.natsUrl!));
    }
    const deliveries = new DeliveriesStore(dataSource, {
      disableAfterFailedDeliveries: options.disableAfterFailedDeliveries ?? DEFAULT_DISABLE_AFTER_FAILED_DELIVERIES, firstDelayMs: delivery.retryScheduleMs[0] ?? 0,
    });
    worker = new DeliveryWorker(deliveries, new WebhookSender({ allowPrivate }, options.deliveryTimeoutMs), secretBox, delivery, logger);
    app = await NestFactory.createMicroservice(
      NotificationsModule.register({ dataSource, attempts: worker, endpoints: { secretBox, allowPrivate, secretOverlapMs: options.secretOverlapMs ?? DEFAULT_SECRET_OVERLAP_MS } }),
      { strategy, logger: new PinoNestLogger(logger) },
    );
    app.useGlobalFilters(new ServiceErrorFilter(logger));
    app.useGlobalInterceptors(new RequestContextInterceptor(logger));
    await app.listen();
    consumers = new SourceEventsConsumers({
      streams, namespace, logger, store: new RecordEventsStore(dataSource, worker), firstDelayMs: delivery.retryScheduleMs[0] ?? 0, ackWaitMs: options.consumerAckWaitMs,
      publicBaseUrl: options.publicBaseUrl,
    });
    await consumers.start();
    erasures = new EraseConversationsConsumer({ streams, namespace, logger, dataSource, ackWaitMs: options.consumerAckWaitMs });
    await erasures.start();
    worker.start();
    retention = new EventsRetention(dataSource, logger);
    retention.start();
  } catch (err) {
    await close();
    throw err;
  }
  return { close };
}
export { notificationsSettingsFrom } from './notifications.settings.js';
