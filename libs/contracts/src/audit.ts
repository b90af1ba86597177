/**
 * The audit log's shared vocabulary: the actions it records, and who started a change as the gateway tells the
 * services (the gateway alone knows the API key and the client's address, so it carries them on each command and
 * the services keep them in their events' metadata, from where the gateway's audit projection reads them back).
 */
import type { AgentIntegrationEvent } from './agents.js';

export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'integration.configured',
  'integration.removed',
  'agent.created',
  'agent.updated',
  'agent.privacy_settings_changed',
  'agent.paused',
  'agent.resumed',
  'agent.deleted',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.secret_revealed',
  'data_request.created',
  'data_request.completed',
  'data_request.failed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The agent fields that decide what is kept of callers' data: a change to any of them is also its own audit entry. */
export const PRIVACY_SETTING_FIELDS = ['pii_redaction', 'retention', 'store_content'] as const;

/** Who started a command, as the gateway carries it on the bus and the services keep it in their events' metadata. */
export interface RequestOrigin {
  request_id: string | null;
  /** The API key that made the request; null for work nobody asked for over the API (the system's own). */
  actor_key_id: string | null;
  client_address: string | null;
}

/**
 * An agent event as the agents relay publishes it: the integration event, where the change came from, and for
 * an update the names of the fields it changed (never their values). Both are absent on events recorded before
 * the audit log existed.
 */
export interface OriginatedAgentEvent extends AgentIntegrationEvent {
  origin?: RequestOrigin;
  changed_fields?: string[];
}
