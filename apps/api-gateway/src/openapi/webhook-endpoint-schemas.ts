/** OpenAPI components of the webhook endpoints resource (outbound events). */
import {
  OUTBOUND_DELIVERY_STATUSES, OUTBOUND_EVENT_TYPES, WEBHOOK_ENDPOINT_LIMITS, WEBHOOK_ENDPOINT_STATUSES, type CreatedWebhookEndpoint, type OutboundAttemptView,
  type OutboundDeliveryDetail, type OutboundDeliveryView, type OutboundEvent, type RecoverDeliveriesReply, type WebhookEndpointSecretReply, type WebhookEndpointView, type WebhookTestResult,
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

const DELIVERY_EXAMPLE: OutboundDeliveryView = {
  id: 'dlv_0a1b2c3d4e5f6a7b8c9d0e1f',
  endpoint_id: ENDPOINT_EXAMPLE.id,
  event_id: 'evt_9f8e7d6c5b4a39281706f5e4',
  event_type: 'conversation.ended',
  status: 'pending',
  attempt_count: 1,
  next_attempt_at: '2025-03-01T10:01:05.000Z',
  created_at: '2025-03-01T10:01:00.000Z',
  updated_at: '2025-03-01T10:01:00.000Z',
};
const EVENT_EXAMPLE: OutboundEvent = {
  id: DELIVERY_EXAMPLE.event_id,
  type: 'agent.created',
  timestamp: '2025-03-01T10:00:00.000Z',
  data: {
    agent: { id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e', name: 'Front desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
    version: 1,
  },
};
const ATTEMPT_EXAMPLE: OutboundAttemptView = {
  attempted_at: '2025-03-01T10:01:00.000Z', status_code: 503, error: null, duration_ms: 84, response_body: 'Service Unavailable',
};
const deliveryProperties = {
  id: string({ examples: [DELIVERY_EXAMPLE.id] }),
  endpoint_id: string(),
  event_id: string({ description: 'The event’s id: the webhook-id header of every attempt.' }),
  event_type: enumOf(OUTBOUND_EVENT_TYPES),
  status: enumOf(OUTBOUND_DELIVERY_STATUSES),
  attempt_count: integer({ minimum: 0 }),
  next_attempt_at: nullableString({ format: 'date-time', description: 'When the next attempt is due; null once succeeded or failed.' }),
  created_at: dateTime,
  updated_at: dateTime,
};
const attempt = viewSchema<OutboundAttemptView>(
  {
    attempted_at: dateTime,
    status_code: { type: ['integer', 'null'], description: 'The answer’s status; null when none came (see error).' },
    error: nullableString({ description: 'Why no answer counts: timeout, refused address, redirect, network…' }),
    duration_ms: integer({ minimum: 0 }),
    response_body: nullableString({ maxLength: 1024, description: 'The first 1 KiB of the answer’s body.' }),
  },
  { examples: [ATTEMPT_EXAMPLE] },
);

export function webhookEndpointComponents(): Record<string, JsonSchema> {
  return {
    WebhookEndpoint: viewSchema<WebhookEndpointView>(viewProperties, { description: 'A webhook endpoint, without its secret.', examples: [ENDPOINT_EXAMPLE] }),
    CreatedWebhookEndpoint: viewSchema<CreatedWebhookEndpoint>(
      { ...viewProperties, secret },
      { description: 'The new endpoint and its signing secret.', examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }] },
    ),
    WebhookEndpointSecret: viewSchema<WebhookEndpointSecretReply>({ secret }, { examples: [{ secret: SECRET_EXAMPLE }] }),
    OutboundDelivery: viewSchema<OutboundDeliveryView>(deliveryProperties, { description: 'A delivery of one event to one endpoint.', examples: [DELIVERY_EXAMPLE] }),
    OutboundDeliveryDetail: viewSchema<OutboundDeliveryDetail>(
      { ...deliveryProperties, attempts: arrayOf(attempt) },
      { description: 'A delivery with every attempt, oldest first.', examples: [{ ...DELIVERY_EXAMPLE, attempts: [ATTEMPT_EXAMPLE] }] },
    ),
    RecoverDeliveriesRequest: {
      type: 'object', required: ['since'], properties: { since: dateTime }, additionalProperties: false, examples: [{ since: '2025-03-01T00:00:00Z' }],
    },
    RecoverDeliveriesReply: viewSchema<RecoverDeliveriesReply>({ deliveries: integer({ minimum: 0 }) }, { examples: [{ deliveries: 3 }] }),
    OutboundEvent: viewSchema<OutboundEvent>(
      {
        id: string({ description: 'evt_…: the webhook-id header of each delivery.' }),
        type: enumOf(OUTBOUND_EVENT_TYPES),
        timestamp: dateTime,
        data: {
          type: 'object',
          description: 'agent.*: { agent, version }; conversation.*: { conversation: <ConversationListItem>, sequence } (sequence: the conversation’s version).',
        },
      },
      { description: 'An outbound event: the body of every delivery of it.', examples: [EVENT_EXAMPLE] },
    ),
    WebhookTestResult: viewSchema<WebhookTestResult>(
      {
        event_id: string(),
        delivery_id: string(),
        succeeded: { ...boolean, description: 'A 2xx came within 15 s.' },
        status_code: { type: ['integer', 'null'] },
        error: nullableString(),
        duration_ms: integer({ minimum: 0 }),
        response_body: nullableString({ maxLength: 1024 }),
      },
      {
        description: 'The test event’s attempt.',
        examples: [{ event_id: EVENT_EXAMPLE.id, delivery_id: DELIVERY_EXAMPLE.id, succeeded: true, status_code: 200, error: null, duration_ms: 42, response_body: 'ok' }],
      },
    ),
    CreateWebhookEndpointRequest: createRequest,
    UpdateWebhookEndpointRequest: updateRequest,
  };
}
