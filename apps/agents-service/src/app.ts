import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { CustomStrategy } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  closeNats, connectNats, createLogger, InProcessServer, JetStreamStreams, NamespacedNatsServer, openDatabase, PinoNestLogger, ReadRouter, readMarksSubject, ReplyClaimInterceptor, ReplyClaims,
  RequestContextInterceptor, SecretBox, ServiceErrorFilter, serviceTransportOptions, type InProcessBus, type MessageStreams,
} from '@voice/service-kit';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { DomainErrorInterceptor } from './transport/domain-error.interceptor.js';
import { AgentsModule } from './agents.module.js';
import { AGENTS_SCHEMA, agentsMigrations } from './database/agents-database.js';
import { AgentEventsRelay } from './relay/agent-events.relay.js';
import { createVoicePlatformAdapters } from '@voice/voice-platforms';
import type { PlatformSyncSettings } from './platform-sync/platform-sync.handler.js';

import { DEFAULT_PLATFORM_SYNC } from './platform-sync/platform-sync.settings.js';
import type { PlatformHttpOptions } from '@voice/voice-platforms';

export const AGENTS_SERVICE_NAME = 'agents-service';
export { DEFAULT_PLATFORM_SYNC, platformSyncSettingsFrom } from './platform-sync/platform-sync.settings.js';

export interface AgentsServiceOptions {
  databaseUrl: string;
  /** DATABASE_MIGRATION_URL: the schema owner, migrations only (service-kit openDatabase). */
  databaseMigrationUrl?: string;
  /** DATABASE_READ_URL: a streaming replica serving the agent list and GET reads (service-kit ReadRouter). */
  databaseReadUrl?: string;
  /** DATABASE_READ_MAX_LAG_MS: further behind than this, the replica serves nothing. */
  databaseReadMaxLagMs?: number;
  /** Required unless `local` is given. */
  natsUrl?: string;
  /** Servers holding each JetStream stream and durable consumer it creates (JETSTREAM_REPLICAS); 1 when unset. */
  jetstreamReplicas?: number;
  /** NATS subject/stream namespace; empty in production. */
  namespace?: string;
  /** One-process mode (no NATS server): the in-process bus and streams shared with the other apps. */
  local?: { rpc: InProcessBus; streams: MessageStreams };
  relayPollIntervalMs?: number;
  /** The platform sync: inline bound, concurrency, worker poll interval (defaults in DEFAULT_PLATFORM_SYNC). */
  platformSync?: Partial<Omit<PlatformSyncSettings, 'logger'>>;
  /**
   * Seals integration secrets (INTEGRATIONS_KEY). main.ts and `npm start` always pass one; when absent
   * (tests that do not care) a random key for this process only is used, so stored secrets do not survive it.
   */
  secretBox?: SecretBox;
  /** Platform calls (ALLOW_PRIVATE_PLATFORM_URLS, PLATFORM_REQUEST_TIMEOUT_MS). */
  platformHttp?: PlatformHttpOptions;
  /** Where logs go; defaults to JSON lines on stdout. */
  logger?: Logger;
}

export interface RunningAgentsService {
  close(): Promise<void>;
}

/**
 * Migrates the `agents` schema, starts the outbox relay to JetStream and serves
 * the agents RPCs over NATS (queue group `agents-service`, so replicas share the
 * load) — or, with `local`, over the in-process bus and streams of one-process mode.
 */
export async function startAgentsService(options: AgentsServiceOptions): Promise<RunningAgentsService> {
  const namespace = options.namespace ?? '';
  const logger = options.logger ?? createLogger(AGENTS_SERVICE_NAME);
  if (!options.local && !options.natsUrl) throw new Error('startAgentsService needs natsUrl (or local for one-process mode)');
  const secretBox = options.secretBox;
  if (!secretBox) logger.warn('no INTEGRATIONS_KEY given: integration secrets are sealed with a key that dies with this process');
  const dataSource = await openDatabase({ url: options.databaseUrl, migrationUrl: options.databaseMigrationUrl, schema: AGENTS_SCHEMA, migrations: agentsMigrations, applicationName: AGENTS_SERVICE_NAME });
  let nc: NatsConnection | undefined;
  let relay: AgentEventsRelay | undefined;
  let app: INestMicroservice | undefined;
  let reads: ReadRouter | undefined;

  const close = async () => {
    await app?.close().catch((err: unknown) => logger.error({ err }, 'closing the NATS server failed'));
    await relay?.stop();
    await reads?.close();
    await closeNats(nc);
    if (dataSource.isInitialized) await dataSource.destroy();
  };

  try {
    let streams: MessageStreams;
    let strategy: CustomStrategy['strategy'];
    let claims: ReplyClaims | undefined;
    if (options.local) {
      streams = options.local.streams;
      strategy = new InProcessServer(options.local.rpc);
    } else {
      nc = await connectNats(options.natsUrl!, `${AGENTS_SERVICE_NAME}-relay`);
      streams = new JetStreamStreams(nc, { replicas: options.jetstreamReplicas });
      claims = await ReplyClaims.open(nc, namespace, { replicas: options.jetstreamReplicas });
      strategy = new NamespacedNatsServer(namespace, serviceTransportOptions(AGENTS_SERVICE_NAME, options.natsUrl!));
    }
    reads = await ReadRouter.open({
      primary: dataSource, url: options.databaseReadUrl, maxLagMs: options.databaseReadMaxLagMs, schema: AGENTS_SCHEMA, applicationName: AGENTS_SERVICE_NAME, logger,
    });
    if (nc) reads.shareMarksOver(nc, readMarksSubject(namespace, AGENTS_SERVICE_NAME));
    relay = await AgentEventsRelay.start({ dataSource, streams, namespace, logger, pollIntervalMs: options.relayPollIntervalMs });
    app = await NestFactory.createMicroservice(
      AgentsModule.register({
        dataSource,
        reads,
        commitListener: relay,
        platformAdapters: createVoicePlatformAdapters(options.platformHttp ?? {}),
        integrations: {
          secretBox: secretBox ?? new SecretBox({ current: randomBytes(32) }),
          allowPrivate: options.platformHttp?.allowPrivate ?? false,
        },
        platformSync: { ...DEFAULT_PLATFORM_SYNC, ...options.platformSync, logger },
      }),
      { strategy, logger: new PinoNestLogger(logger) },
    );
    app.useGlobalFilters(new ServiceErrorFilter(logger));
    // Over NATS a reply bigger than the bus carries (a page of agents at their largest) leaves as a claim check.
    app.useGlobalInterceptors(new RequestContextInterceptor(logger), new DomainErrorInterceptor(), ...(claims ? [new ReplyClaimInterceptor(claims)] : []));
    await app.listen();
  } catch (err) {
    await close();
    throw err;
  }
  return { close };
}
