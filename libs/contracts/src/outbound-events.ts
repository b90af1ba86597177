/**
 * Outbound events: what an account's systems are told through its webhook endpoints (notifications-service),
 * and the request-reply payloads the gateway sends that service for the /v1/webhook-endpoints routes.
 */
import type { AccountContext, RawQuery } from './rpc.js';

export const NotificationsRpc = {
  createEndpoint: 'notifications.endpoints.create',
  listEndpoints: 'notifications.endpoints.list',
  getEndpoint: 'notifications.endpoints.get',
  endpointSecret: 'notifications.endpoints.secret',
  rotateSecret: 'notifications.endpoints.rotate-secret',
  sendTestEvent: 'notifications.endpoints.test',
  updateEndpoint: 'notifications.endpoints.update',
  deleteEndpoint: 'notifications.endpoints.delete',
  listDeliveries: 'notifications.deliveries.list',
  getDelivery: 'notifications.deliveries.get',
  resendDelivery: 'notifications.deliveries.resend',
  recoverDeliveries: 'notifications.deliveries.recover',
  listEvents: 'notifications.events.list',
  getEvent: 'notifications.events.get',
  health: 'notifications.health',
} as const;

export const OUTBOUND_EVENT_TYPES = [
  'conversation.started', 'conversation.updated', 'conversation.ended',
  'agent.created', 'agent.updated', 'agent.deleted', 'agent.sync_failed',
  'integration.credentials_invalid', 'webhook_endpoint.disabled', 'webhook.test',
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** The limits of the endpoints resource. */
export const WEBHOOK_ENDPOINT_LIMITS = { perAccount: 20, urlLength: 2_048, description: 500, agentIds: 100 } as const;

export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** An endpoint as the API shows it: never its secret (only the last four characters). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  /** null: every event type. */
  event_types: OutboundEventType[] | null;
  /** null: every agent's events. */
  agent_ids: string[] | null;
  enabled: boolean;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  secret_hint: string;
  deliveries_last_24h: { succeeded: number; failed: number };
  created_at: string;
  updated_at: string;
}

/** The 201 of a create: the view plus the signing secret (`whsec_…`), shown this once and by GET …/secret. */
export type CreatedWebhookEndpoint = WebhookEndpointView & { secret: string };

export interface CreateWebhookEndpointRequest {
  account: AccountContext;
  body: unknown;
}
export interface UpdateWebhookEndpointRequest {
  account_id: string;
  endpoint_id: string;
  body: unknown;
}
export interface WebhookEndpointRequest {
  account_id: string;
  endpoint_id: string;
}
export interface ListWebhookEndpointsRequest {
  account_id: string;
  query: RawQuery;
}
export interface WebhookEndpointSecretReply {
  secret: string;
}

/** The body of every delivery (Standard Webhooks: the `webhook-id` header is `id`). */
export interface OutboundEvent<Data = unknown> {
  id: string;
  type: OutboundEventType;
  timestamp: string;
  data: Data;
}

export const OUTBOUND_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type OutboundDeliveryStatus = (typeof OUTBOUND_DELIVERY_STATUSES)[number];

/** One attempt of a delivery: a status code when an answer came, else the error. */
export interface OutboundAttemptView {
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The first 1 KiB of the answer's body. */
  response_body: string | null;
}

/** A delivery of one event to one endpoint, as the deliveries list shows it. */
export interface OutboundDeliveryView {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: OutboundEventType;
  status: OutboundDeliveryStatus;
  attempt_count: number;
  /** When the next attempt is due; null once succeeded or failed. */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** GET …/deliveries/{delivery_id}: the delivery and every attempt, oldest first. */
export interface OutboundDeliveryDetail extends OutboundDeliveryView {
  attempts: OutboundAttemptView[];
}

export interface ListEndpointDeliveriesRequest {
  account_id: string;
  endpoint_id: string;
  query: RawQuery;
}
export interface EndpointDeliveryRequest {
  account_id: string;
  endpoint_id: string;
  delivery_id: string;
}
export interface RecoverDeliveriesRequest {
  account_id: string;
  endpoint_id: string;
  body: unknown;
}
/** 202 of recover: how many failed deliveries were queued again. */
export interface RecoverDeliveriesReply {
  deliveries: number;
}

/** The filters of GET /v1/events, besides page and per_page. */
export const OUTBOUND_EVENT_FILTERS = ['type', 'conversation_id', 'agent_id', 'created_after', 'created_before'] as const;

export interface ListEventsRequest {
  account_id: string;
  query: RawQuery;
}
export interface GetEventRequest {
  account_id: string;
  event_id: string;
}

/** The answer of POST …/test: the webhook.test event's first attempt, made before answering. */
export interface WebhookTestResult {
  event_id: string;
  delivery_id: string;
  /** A 2xx came within 15 s. */
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}
