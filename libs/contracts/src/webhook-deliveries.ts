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
import { Type, type Static } from '@sinclair/typebox';
import { VOICE_PLATFORMS } from './agents.js';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from './view-schema.js';

export const WEBHOOK_DELIVERY_OUTCOMES = ['accepted', 'duplicate', 'ignored', 'failed'] as const;
export type WebhookDeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];

/** How long delivery bodies are kept before the rows are pruned, unless WEBHOOK_DELIVERY_RETENTION_DAYS says otherwise. */
export const DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

/** The latest replay of a delivery. */
export const WebhookDeliveryReplayRefSchema = ClosedObject({ id: Type.String(), outcome: StringEnum(WEBHOOK_DELIVERY_OUTCOMES), at: DateTime() });
export type WebhookDeliveryReplayRef = Static<typeof WebhookDeliveryReplayRefSchema>;

const deliveryProperties = {
  id: Type.String({ examples: ['whd_0c1d2e3f4a5b6c7d8e9f0a1b'] }),
  platform: StringEnum(VOICE_PLATFORMS),
  integration_id: Type.String(),
  received_at: DateTime(),
  outcome: StringEnum(WEBHOOK_DELIVERY_OUTCOMES, {
    description:
      'accepted: its call events are queued for recording; duplicate: they were already accepted; ignored: nothing to record (reason says why; replayable); failed: not the platform’s shape, or not recordable.',
  }),
  // Why it was ignored or failed, or what it was a duplicate of; null when accepted.
  reason: NullableString(),
  event_type: NullableString({ description: 'The platform’s event type.' }),
  platform_call_id: NullableString(),
  platform_agent_id: NullableString(),
  // The conversation its events belong to (accepted and duplicate deliveries).
  conversation_id: NullableString(),
  event_ids: Type.Array(Type.String(), { description: 'The call events it maps to (deterministic ids).' }),
  body_bytes: Type.Integer({ minimum: 0 }),
  replay_of: NullableString({ description: 'On a replay: the delivery replayed.' }),
  last_replay: Nullable(WebhookDeliveryReplayRefSchema),
};

/** An item of the delivery list: everything but the body. */
export const WebhookDeliveryListItemSchema = ClosedObject(deliveryProperties, { description: 'A verified webhook delivery, without its body.' });
export type WebhookDeliveryListItem = Static<typeof WebhookDeliveryListItemSchema>;

export const WebhookDeliveryDetailSchema = ClosedObject(
  {
    ...deliveryProperties,
    body: Type.String({ description: 'The body exactly as received.' }),
    body_encoding: StringEnum(['utf8', 'base64'], { description: 'utf8, unless the bytes were not valid UTF-8 (then base64).' }),
  },
  { description: 'A delivery with its body.' },
);
export type WebhookDeliveryDetail = Static<typeof WebhookDeliveryDetailSchema>;

/** The answer to a platform's signed delivery. */
export const WebhookReceiptSchema = ClosedObject({ delivery_id: Type.String(), outcome: StringEnum(WEBHOOK_DELIVERY_OUTCOMES), reason: NullableString() });
export type WebhookReceipt = Static<typeof WebhookReceiptSchema>;
