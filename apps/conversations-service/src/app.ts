import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { CustomStrategy } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  closeNats, connectNats, createLogger, InProcessServer, JetStreamStreams, NamespacedNatsServer, openDatabase, PinoNestLogger, ReadRouter, readMarksSubject, ReplyClaimInterceptor, ReplyClaims,
  RequestContextInterceptor, serviceTransportOptions, ServiceErrorFilter, type InProcessBus, type MessageStreams,
} from '@voice/service-kit';
import { AgentEventsConsumer } from './agent-directory/agent-events.consumer.js';
import { DEFAULT_TUNING, type ServiceTuning, type ServiceContext } from './config/service-context.js';
import { ConversationsModule } from './conversations.module.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from './database/conversations-database.js';
import { CallEventsConsumer } from './record-call-events/call-events.consumer.js';
import { ParkedEventsReplayer } from './replay-parked-events/parked-events.replayer.js';
import { DataRequestsWorker } from './data-requests/data-requests.worker.js';
import { RetentionSweeper } from './sweep-retention/retention.sweeper.js';

export interface ConversationsServiceOptions {
  databaseUrl: string;
  /** DATABASE_MIGRATION_URL: the schema owner, migrations only (service-kit openDatabase). */
  databaseMigrationUrl?: string;
  /** DATABASE_READ_URL: a streaming replica serving list, detail, transcript and stats reads (service-kit ReadRouter). */
  databaseReadUrl?: string;
  /** DATABASE_READ_MAX_LAG_MS: further behind than this, the replica serves nothing. */
  databaseReadMaxLagMs?: number;
  /** Required unless `local` is given. */
  natsUrl?: string;
  /** Servers holding each JetStream stream and durable consumer it creates (JETSTREAM_REPLICAS); 1 when unset. */
  jetstreamReplicas?: number;
  namespace?: string;
  /** One-process mode (no NATS server): the in-process bus and streams shared with the other apps. */
  local?: { rpc: InProcessBus; streams: MessageStreams };
  /** Refuse call events whose subject names no account (every publisher is scoped to an account). */
  requireAccountSubject?: boolean;
  /** Consumer settings; tests shorten ack_wait to see redeliveries quickly. */
  tuning?: Partial<ServiceTuning>;
}

export interface RunningConversationsService {
  close(): Promise<void>;
  /** For in-process tests: the Nest application (handlers, consumers). */
  app: INestMicroservice;
}

export const SERVICE_NAME = 'conversations-service';
export { conversationsTuningFrom } from './config/service-tuning.settings.js';

export async function startConversationsService(options: ConversationsServiceOptions): Promise<RunningConversationsService> {
  const logger = createLogger(SERVICE_NAME);
  if (!options.local && !options.natsUrl) throw new Error('startConversationsService needs natsUrl (or local for one-process mode)');
  const dataSource = await openDatabase({
    url: options.databaseUrl,
    migrationUrl: options.databaseMigrationUrl,
    schema: CONVERSATIONS_SCHEMA,
    migrations: conversationsMigrations,
    applicationName: SERVICE_NAME,
  });
  let nc: NatsConnection | undefined;
  let streams: MessageStreams;
  let strategy: CustomStrategy['strategy'];
  let claims: ReplyClaims | undefined;
  let reads: ReadRouter;
  try {
    if (options.local) {
      streams = options.local.streams;
      strategy = new InProcessServer(options.local.rpc);
    } else {
      nc = await connectNats(options.natsUrl!, SERVICE_NAME);
      streams = new JetStreamStreams(nc, { replicas: options.jetstreamReplicas });
      claims = await ReplyClaims.open(nc, options.namespace ?? '', { replicas: options.jetstreamReplicas });
      strategy = new NamespacedNatsServer(options.namespace ?? '', serviceTransportOptions(SERVICE_NAME, options.natsUrl!));
    }
    reads = await ReadRouter.open({
      primary: dataSource, url: options.databaseReadUrl, maxLagMs: options.databaseReadMaxLagMs, schema: CONVERSATIONS_SCHEMA, applicationName: SERVICE_NAME, logger,
    });
    if (nc) reads.shareMarksOver(nc, readMarksSubject(options.namespace, SERVICE_NAME));
  } catch (err) {
    await closeNats(nc);
    await dataSource.destroy();
    throw err;
  }
  const context: ServiceContext = { dataSource, reads, streams, namespace: options.namespace, logger, tuning: { ...DEFAULT_TUNING, ...options.tuning }, requireAccountSubject: options.requireAccountSubject };
  const app = await NestFactory.createMicroservice(ConversationsModule.register(context), { strategy, logger: new PinoNestLogger(logger) });
  app.useGlobalFilters(new ServiceErrorFilter(logger));
  // Over NATS a reply bigger than the bus carries (a long transcript, a page of long records) leaves as a claim check.
  app.useGlobalInterceptors(new RequestContextInterceptor(logger), ...(claims ? [new ReplyClaimInterceptor(claims)] : []));
  await app.listen();

  // Agent knowledge first, so the first call events find their agents where possible; the replay of
  // events parked for unknown agents runs beside it. Stopped in the same order.
  const workers: Array<{ start(): void | Promise<void>; stop(): Promise<void> }> = [
    app.get(AgentEventsConsumer), app.get(ParkedEventsReplayer), app.get(CallEventsConsumer), app.get(DataRequestsWorker), app.get(RetentionSweeper),
  ];
  for (const worker of workers) await worker.start();

  let closed = false;
  return {
    app,
    async close() {
      if (closed) return;
      closed = true;
      for (const worker of workers) await worker.stop().catch((err) => logger.error({ err }, 'consumer stop failed'));
      await app.close().catch((err) => logger.error({ err }, 'nest close failed'));
      await reads.close();
      // drain() flushes pending acks before the connection closes.
      await closeNats(nc);
      await dataSource.destroy().catch(() => undefined);
    },
  };
}
