/**
 * OpenAPI components of the webhook routes: the platforms' request bodies (each platform's, from
 * @voice/voice-platforms) and the delivery log.
 */
import {
  WebhookDeliveryDetailSchema, WebhookDeliveryListItemSchema, WebhookReceiptSchema, type WebhookDeliveryListItem,
} from '@voice/contracts';
import { VOICE_PLATFORM_DEFINITIONS } from '@voice/voice-platforms';
import type { TSchema } from '@sinclair/typebox';
import type { JsonSchema } from './json-schema.js';
import { viewComponent } from './view-component.js';

/** The delivery views name no other component. */
const NAMED = new Map<TSchema, string>();

const DELIVERY_EXAMPLE: WebhookDeliveryListItem = {
  id: 'whd_0c1d2e3f4a5b6c7d8e9f0a1b',
  platform: 'platform_a',
  integration_id: 'int_3b9f1c7e2a5d8f0c4e6a1b2d',
  received_at: '2025-01-31T14:09:12.000Z',
  outcome: 'accepted',
  reason: null,
  event_type: 'call_ended',
  platform_call_id: 'call_7f3a',
  platform_agent_id: 'agent_0123456789abcdef0123456789abcdef',
  conversation_id: 'call_7f3a',
  event_ids: ['pa:call_7f3a:call_ended', 'pa:call_7f3a:call_ended:transcript'],
  body_bytes: 5234,
  replay_of: null,
  last_replay: null,
};

export function webhookComponents(): Record<string, JsonSchema> {
  return {
    ...Object.fromEntries(Object.values(VOICE_PLATFORM_DEFINITIONS).map((platform) => [platform.webhookSchemaName, platform.webhookSchema])),
    WebhookReceipt: viewComponent(WebhookReceiptSchema, NAMED, [{ delivery_id: 'whd_0c1d2e3f4a5b6c7d8e9f0a1b', outcome: 'accepted', reason: null }]),
    WebhookDelivery: viewComponent(WebhookDeliveryListItemSchema, NAMED, [DELIVERY_EXAMPLE]),
    WebhookDeliveryDetail: viewComponent(WebhookDeliveryDetailSchema, NAMED, [{ ...DELIVERY_EXAMPLE, body: '{"event":"call_ended","call":{…}}', body_encoding: 'utf8' }]),
  };
}
