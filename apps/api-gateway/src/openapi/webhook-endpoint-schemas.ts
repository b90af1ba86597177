/** OpenAPI components of the webhook endpoints resource (outbound events). */
import {
  OUTBOUND_EVENT_TYPES, WEBHOOK_ENDPOINT_LIMITS, WEBHOOK_ENDPOINT_STATUSES, type CreatedWebhookEndpoint, type WebhookEndpointSecretReply, type WebhookEndpointView,
} from '@voice/contracts';
import { arrayOf, boolean, dateTime, enumOf, integer, nullable, nullableString, string, viewSchema, type JsonSchema } from './json-schema.js';

const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ENDPOINT_EXAMPLE: WebhookEndpointView = {
  id: 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  url: 'https://crm.example.com/hooks/voice',
  description: 'CRM: calls that ended',
  event_types: ['conversation.ended'],
  agent_ids: null,
  enabled: true,
  status: 'active',
  disabled_reason: null,
  secret_hint: 'LaSw',
  deliveries_last_24h: { succeeded: 42, failed: 1 },
  created_at: '2025-03-01T10:00:00.000Z',
  updated_at: '2025-03-01T10:00:00.000Z',
};

const eventTypes = nullable(arrayOf(enumOf(OUTBOUND_EVENT_TYPES), { minItems: 1, uniqueItems: true }));
const agentIds = nullable(arrayOf(string({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: WEBHOOK_ENDPOINT_LIMITS.agentIds }));
const url = string({ format: 'uri', maxLength: WEBHOOK_ENDPOINT_LIMITS.urlLength, description: 'Absolute https URL, no credentials; redirects are not followed.' });
const writable = {
  url,
  description: nullableString({ maxLength: WEBHOOK_ENDPOINT_LIMITS.description }),
  event_types: { ...eventTypes, description: 'Only these event types; null or absent: all (an unknown type is 400 invalid_parameter with valid_values).' },
  agent_ids: { ...agentIds, description: 'Only these agents’ events; null or absent: all.' },
  enabled: { ...boolean, description: 'false: nothing is delivered to it (status disabled).' },
};

const viewProperties = {
  id: string({ examples: [ENDPOINT_EXAMPLE.id] }),
  url: string({ format: 'uri' }),
  description: nullableString(),
  event_types: eventTypes,
  agent_ids: agentIds,
  enabled: boolean,
  status: enumOf(WEBHOOK_ENDPOINT_STATUSES),
  disabled_reason: nullableString({ description: 'Why it is disabled; null while active.' }),
  secret_hint: string({ description: 'The last 4 characters of the signing secret.' }),
  deliveries_last_24h: viewSchema<WebhookEndpointView['deliveries_last_24h']>({ succeeded: integer({ minimum: 0 }), failed: integer({ minimum: 0 }) }),
  created_at: dateTime,
  updated_at: dateTime,
};
const secret = string({ pattern: '^whsec_[A-Za-z0-9+/]+=*$', description: 'Standard Webhooks secret: whsec_ and the base64 of 32 random bytes.' });

const createRequest: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: writable,
  additionalProperties: false,
  examples: [{ url: ENDPOINT_EXAMPLE.url, description: ENDPOINT_EXAMPLE.description, event_types: ['conversation.ended'] }],
};
const updateRequest: JsonSchema = {
  type: 'object',
  minProperties: 1,
  properties: writable,
  additionalProperties: false,
  examples: [{ enabled: false }],
};

export function webhookEndpointComponents(): Record<string, JsonSchema> {
  return {
    WebhookEndpoint: viewSchema<WebhookEndpointView>(viewProperties, { description: 'A webhook endpoint, without its secret.', examples: [ENDPOINT_EXAMPLE] }),
    CreatedWebhookEndpoint: viewSchema<CreatedWebhookEndpoint>(
      { ...viewProperties, secret },
      { description: 'The new endpoint and its signing secret.', examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }] },
    ),
    WebhookEndpointSecret: viewSchema<WebhookEndpointSecretReply>({ secret }, { examples: [{ secret: SECRET_EXAMPLE }] }),
    CreateWebhookEndpointRequest: createRequest,
    UpdateWebhookEndpointRequest: updateRequest,
  };
}
