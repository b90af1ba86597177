/**
 * OpenAPI components of the webhook routes: the platforms' request bodies (each platform's, from
 * @voice/voice-platforms) and the delivery log.
 */
import { VOICE_PLATFORMS, WEBHOOK_DELIVERY_OUTCOMES, type WebhookDeliveryDetail, type WebhookDeliveryListItem } from '@voice/contracts';
import { VOICE_PLATFORM_DEFINITIONS } from '@voice/voice-platforms';
import { arrayOf, dateTime, enumOf, integer, nullable, nullableString, string, viewSchema, type JsonSchema } from './json-schema.js';

const deliveryProperties = {
  id: string({ examples: ['whd_0c1d2e3f4a5b6c7d8e9f0a1b'] }),
  platform: enumOf(VOICE_PLATFORMS),
  integration_id: string(),
  received_at: dateTime,
  outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES, {
    description: 'accepted: its call events are queued for recording; duplicate: they were already accepted; ignored: nothing to record (reason says why; replayable); failed: not the platform’s shape, or not recordable.',
  }),
  reason: nullableString(),
  event_type: nullableString({ description: 'The platform’s event type.' }),
  platform_call_id: nullableString(),
  platform_agent_id: nullableString(),
  conversation_id: nullableString(),
  event_ids: arrayOf(string(), { description: 'The call events it maps to (deterministic ids).' }),
  body_bytes: integer({ minimum: 0 }),
  replay_of: nullableString({ description: 'On a replay: the delivery replayed.' }),
  last_replay: nullable({ type: 'object', required: ['id', 'outcome', 'at'], additionalProperties: false, properties: { id: string(), outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES), at: dateTime } }),
};

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
    WebhookReceipt: {
      type: 'object',
      required: ['delivery_id', 'outcome', 'reason'],
      additionalProperties: false,
      properties: { delivery_id: string(), outcome: enumOf(WEBHOOK_DELIVERY_OUTCOMES), reason: nullableString() },
      examples: [{ delivery_id: 'whd_0c1d2e3f4a5b6c7d8e9f0a1b', outcome: 'accepted', reason: null }],
    },
    WebhookDelivery: viewSchema<WebhookDeliveryListItem>(deliveryProperties, { description: 'A verified webhook delivery, without its body.', examples: [DELIVERY_EXAMPLE] }),
    WebhookDeliveryDetail: viewSchema<WebhookDeliveryDetail>(
      {
        ...deliveryProperties,
        body: string({ description: 'The body exactly as received.' }),
        body_encoding: enumOf(['utf8', 'base64'], { description: 'utf8, unless the bytes were not valid UTF-8 (then base64).' }),
      },
      { description: 'A delivery with its body.', examples: [{ ...DELIVERY_EXAMPLE, body: '{"event":"call_ended","call":{…}}', body_encoding: 'utf8' }] },
    ),
  };
}
