import type { Observable } from 'rxjs';
import type { ConversationStreamSettings } from './conversation-stream/conversation-stream.rules.js';
import type { RateLimitSettings } from './rate-limits/rate-limits.rules.js';

/** Injection tokens for the resources startGateway opens before Nest boots. */
export const DATA_SOURCE = Symbol('DATA_SOURCE');
export const LOGGER = Symbol('LOGGER');
export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');
/** Request-reply client to the services (NATS, or the in-process bus in one-process mode). */
export const RPC_CLIENT = Symbol('RPC_CLIENT');
/** Durable streams the call events are published to (JetStream, or the in-process stand-in). */
export const MESSAGE_STREAMS = Symbol('MESSAGE_STREAMS');
/** Resolves when the message bus answers; used by the health check. */
export const BUS_PROBE = Symbol('BUS_PROBE');

export type BusProbe = () => Promise<void>;

/** The part of a Nest ClientProxy the gateway uses; both the NATS and the in-process client provide it. */
export interface RpcSender {
  send<TResult = unknown>(pattern: string, data: unknown): Observable<TResult>;
}

export interface GatewaySettings {
  namespace?: string;
  adminToken?: string;
  rpcTimeoutMs: number;
  /** PUBLIC_URL: the base of the webhook URLs given to platforms; set to the gateway's own address once it listens when not configured. */
  publicUrl?: string;
  /** PUBLIC_URL was configured rather than defaulted: it then also roots pagination links, whatever Host the client sent. */
  publicUrlConfigured?: boolean;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS: how long webhook delivery bodies (and their rows) are kept. */
  webhookRetentionDays?: number;
  /** Rate limits in force (DEFAULT_RATE_LIMITS when absent). */
  rateLimits?: RateLimitSettings;
  /** Live conversation streams: heartbeat and limits (DEFAULT_CONVERSATION_STREAM_SETTINGS when absent). */
  conversationStreams?: ConversationStreamSettings;
}
