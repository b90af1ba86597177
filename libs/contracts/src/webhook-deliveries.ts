/**
 * The log of signed webhook deliveries from the voice platforms (GET /v1/webhook-deliveries,
 * GET /v1/webhook-deliveries/{id}, POST /v1/webhook-deliveries/{id}/replay).
 *
 * Outcomes:
 * - accepted: mapped to call events, every one durably queued for recording;
 * - duplicate: the same call events were already accepted from an earlier delivery (a platform's retry, a replay);
 * - ignored: verified, but nothing to record — an event type or status we do not handle, a partial
 *   transcript, or a platform agent that is not (yet) linked to one of the account's agents; replayable later;
 * - failed: verified, but the body is not the platform's shape or maps to events we cannot accept; the reason says why.
 */
import type { VoicePlatform } from './agents.js';

export const WEBHOOK_DELIVERY_OUTCOMES = ['accepted', 'duplicate', 'ignored', 'failed'] as const;
export type WebhookDeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];

/** How long delivery bodies are kept before the rows are pruned, unless WEBHOOK_DELIVERY_RETENTION_DAYS says otherwise. */
export const DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

export interface WebhookDeliveryReplayRef {
  id: string;
  outcome: WebhookDeliveryOutcome;
  at: string;
}

/** An item of the delivery list: everything but the body. */
export interface WebhookDeliveryListItem {
  id: string;
  platform: VoicePlatform;
  integration_id: string;
  received_at: string;
  outcome: WebhookDeliveryOutcome;
  /** Why it was ignored or failed, or what it was a duplicate of; null when accepted. */
  reason: string | null;
  /** The platform's event type (`call_ended`, `end-of-call-report`…), when the body names one. */
  event_type: string | null;
  platform_call_id: string | null;
  platform_agent_id: string | null;
  /** The conversation its events belong to (accepted and duplicate deliveries). */
  conversation_id: string | null;
  /** The call events it mapped to (deterministic ids: a retry maps to the same ones). */
  event_ids: string[];
  body_bytes: number;
  /** Set on a replay: the delivery it replayed. */
  replay_of: string | null;
  /** The latest replay of this delivery. */
  last_replay: WebhookDeliveryReplayRef | null;
}

export interface WebhookDeliveryDetail extends WebhookDeliveryListItem {
  /** The body exactly as received: UTF-8 text, or base64 when the bytes are not valid UTF-8. */
  body: string;
  body_encoding: 'utf8' | 'base64';
}
