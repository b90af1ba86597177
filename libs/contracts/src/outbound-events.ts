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
  updateEndpoint: 'notifications.endpoints.update',
  deleteEndpoint: 'notifications.endpoints.delete',
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
