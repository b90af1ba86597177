import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import {
  CALL_EVENTS_STREAM, CALL_EVENTS_SUBJECT_ROOT, CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT,
  DEFAULT_CALL_EVENTS_MAX_AGE_MS, namespacedStream, namespacedSubject,
} from '@voice/contracts';
import {
  closeNats,
  connectNats,
  createLogger,
  InProcessClient,
  JetStreamStreams,
  NamespacedNatsClient,
  NATS_CLIENT_SETTINGS,
  natsConnectionOptions,
  PinoNestLogger,
  redeemClaims,
  ReplyClaims,
  StreamUpdateRefused,
  type InProcessBus,
  type MessageStreams,
} from '@voice/service-kit';
import { DEFAULT_CONVERSATION_STREAM_SETTINGS, type ConversationStreamSettings } from './conversation-stream/conversation-stream.rules.js';
import { openGatewayDatabase } from './database/gateway-database.js';
import { gatewayControllers, GatewayModule } from './gateway.module.js';
import { shareSettingsWithEnvelopes } from './http/envelope.js';
import { GatewayExceptionFilter } from './http/exception.filter.js';
import { answerMalformedRequests, installHttpPipeline, pipelineServerOptions } from './http/http-pipeline.js';
import { routesOf } from './http/route-table.js';
import { OpenApiDocumentHolder } from './openapi/docs.controller.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { planLimitProblems, rateLimitSettings, type RateLimitOptions } from './rate-limits/rate-limits.rules.js';
import type { BusProbe, GatewaySettings, RpcSender } from './tokens.js';

export interface GatewayOptions {
  port: number;
  host?: string;
  databaseUrl: string;
  /** DATABASE_MIGRATION_URL: the schema owner, migrations only (service-kit openDatabase). */
  databaseMigrationUrl?: string;
  /** Required unless `local` is given. */
  natsUrl?: string;
  /** Servers holding each JetStream stream and durable consumer it creates (JETSTREAM_REPLICAS); 1 when unset. */
  jetstreamReplicas?: number;
  namespace?: string;
  /** Enables the admin routes; when unset they answer 404 as if absent. */
  adminToken?: string;
  /** Upper bound for every request-reply call to a service and every stream acknowledgement. */
  rpcTimeoutMs?: number;
  /** PUBLIC_URL: base of the integrations' webhook URLs and, when given, of pagination links; defaults to the gateway's own address (http://127.0.0.1:<port>). */
  publicUrl?: string;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS (30 by default). */
  webhookRetentionDays?: number;
  /** CALL_EVENTS_MAX_AGE_MS: how long the CALL_EVENTS stream keeps a call event (DEFAULT_CALL_EVENTS_MAX_AGE_MS, 7 days, by default). */
  callEventsMaxAgeMs?: number;
  /** Where logs go; defaults to JSON lines on stdout. */
  logger?: Logger;
  /** One-process mode (no NATS server): the in-process bus and streams shared with the services. */
  local?: { rpc: InProcessBus; streams: MessageStreams };
  /** Slow-client limits (HTTP_TIMEOUTS by default; tests shorten them). */
  httpTimeouts?: HttpTimeouts;
  /** Per-key, per-account and failed-authentication limits over DEFAULT_RATE_LIMITS (RATE_LIMIT_*; tests set low ones). */
  rateLimits?: RateLimitOptions;
  /** Live conversation streams (CONVERSATION_STREAM_HEARTBEAT_MS, CONVERSATION_STREAMS_PER_KEY / _PER_ACCOUNT; tests shorten the heartbeat). */
  conversationStreams?: Partial<ConversationStreamSettings>;
}

export interface HttpTimeouts {
  /** A request whose headers are not complete by then is answered 408 and closed (slow-header clients hold no socket for long). */
  headersMs: number;
  /** The whole request, body included (bodies are at most 1 MiB). */
  requestMs: number;
  /** How often Node checks both: its default, 30 s, would let a slow client stay that much longer. */
  checkEveryMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 60_000, checkEveryMs: 1_000 };

export interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_RPC_TIMEOUT_MS = 5000;

interface Bus {
  rpc: RpcSender;
  streams: MessageStreams;
  busProbe: BusProbe;
}

async function openBus(options: GatewayOptions, namespace: string | undefined, cleanups: Array<() => Promise<unknown>>): Promise<Bus> {
  if (options.local) {
    return { rpc: new InProcessClient(options.local.rpc), streams: options.local.streams, busProbe: async () => undefined };
  }
  if (!options.natsUrl) throw new Error('startGateway needs natsUrl (or local for one-process mode)');
  const nats = await connectNats(options.natsUrl, 'api-gateway');
  cleanups.push(() => closeNats(nats));
  const client = new NamespacedNatsClient(namespace ?? '', { ...natsConnectionOptions(options.natsUrl), ...NATS_CLIENT_SETTINGS, name: 'api-gateway-rpc', maxReconnectAttempts: -1 });
  await client.connect();
  cleanups.push(() => client.close());
  // A reply too big for the bus arrives as a claim check: redeemed here, so every caller sees the reply itself.
  const claims = await ReplyClaims.open(nats, namespace ?? '', { replicas: options.jetstreamReplicas });
  const rpc: RpcSender = { send: (pattern, data) => redeemClaims(claims, client.send(pattern, data)) };
  const busProbe: BusProbe = () => (nats.isClosed() ? Promise.reject(new Error('NATS connection closed')) : nats.flush());
  return { rpc, streams: new JetStreamStreams(nats, { replicas: options.jetstreamReplicas }), busProbe };
}

/** The options given, without the ones left undefined (an unset variable keeps its default). */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger('api-gateway');
  const planProblems = planLimitProblems(options.rateLimits?.plans);
  if (planProblems.length) throw new Error(`RATE_LIMIT_PLANS: ${planProblems.join('; ')}`);
  const settings: GatewaySettings = {
    namespace: options.namespace || undefined,
    adminToken: options.adminToken || undefined,
    rpcTimeoutMs: options.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
    publicUrl: options.publicUrl?.replace(/\/+$/, '') || undefined,
    webhookRetentionDays: options.webhookRetentionDays,
    rateLimits: rateLimitSettings(options.rateLimits),
    conversationStreams: { ...DEFAULT_CONVERSATION_STREAM_SETTINGS, ...definedOnly(options.conversationStreams ?? {}) },
  };
  settings.publicUrlConfigured = settings.publicUrl !== undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((err) => logger.warn({ err }, 'error while shutting down'));
  };

  try {
    const dataSource = await openGatewayDatabase(options.databaseUrl, options.databaseMigrationUrl);
    cleanups.push(() => dataSource.destroy());
    const bus = await openBus(options, settings.namespace, cleanups);
    // The gateway publishes call events, so it makes sure their stream exists even if conversations-service has not started
    // yet, with the max age the operator chose, also for a stream created before with another one.
    await bus.streams
      .ensureStream(namespacedStream(settings.namespace, CALL_EVENTS_STREAM), [namespacedSubject(settings.namespace, `${CALL_EVENTS_SUBJECT_ROOT}.>`)], {
        maxAgeMs: options.callEventsMaxAgeMs ?? DEFAULT_CALL_EVENTS_MAX_AGE_MS,
        updateMaxAge: true,
      })
      .catch((err: unknown) => {
        // The stream is there: the gateway can work, but the stream keeps call events for longer than asked.
        if (!(err instanceof StreamUpdateRefused)) throw err;
        logger.warn({ reason: err.message }, 'CALL_EVENTS keeps its previous max age: give the gateway the stream\'s UPDATE permission or change it with the nats CLI');
      });
    // Live streams follow the conversation changes conversations-service publishes; they open even before it has started.
    await bus.streams.ensureStream(
      namespacedStream(settings.namespace, CONVERSATION_CHANGES_STREAM),
      [namespacedSubject(settings.namespace, `${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`)],
      CONVERSATION_CHANGES_RETENTION,
    );

    const controllers = gatewayControllers(settings);
    const routes = routesOf(controllers);
    // An idle keep-alive socket is governed by keepAliveTimeout alone; headersTimeout counts from the first byte of a request.
    const timeouts = options.httpTimeouts ?? HTTP_TIMEOUTS;
    const adapter = new FastifyAdapter({
      ...pipelineServerOptions(routes, logger),
      http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: timeouts.checkEveryMs },
      requestTimeout: timeouts.requestMs,
      // Outlive the idle timeout of a load balancer in front (commonly 60 s) so it never reuses a socket we just closed.
      keepAliveTimeout: 65_000,
      clientErrorHandler: answerMalformedRequests(logger),
    });
    const app = await NestFactory.create<NestFastifyApplication>(
      GatewayModule.forRoot({ settings, dataSource, logger, ...bus }),
      adapter,
      { bodyParser: false, logger: new PinoNestLogger(logger), abortOnError: false },
    );
    cleanups.push(() => app.close());
    const server = adapter.getInstance();
    installHttpPipeline(server, routes, logger);
    shareSettingsWithEnvelopes(server, settings);
    app.get(OpenApiDocumentHolder).document = buildOpenApiDocument(app, controllers);
    app.useGlobalFilters(new GatewayExceptionFilter(logger));

    const host = options.host ?? '0.0.0.0';
    await app.listen(options.port, host);
    const { port } = app.getHttpServer().address() as AddressInfo;
    const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
    // The port is known only now (PORT=0 in tests); the module holds this same settings object.
    if (!settings.publicUrl) settings.publicUrl = url;
    return { url, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
