/** OpenAPI components of the webhook endpoints resource (outbound events). */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  CALL_EVENT_DEFINITION_SCHEMAS, ConversationListItemSchema, CreatedWebhookEndpointSchema, CreateWebhookEndpointPayload, EndpointDisabledDataSchema,
  OutboundAgentDataSchema, OutboundAttemptViewSchema, RecoverDeliveriesPayload, UpdateWebhookEndpointPayload,
  OutboundAgentSyncFailedDataSchema, OutboundConversationDataSchema, OutboundConversationEndedDataSchema, OutboundCredentialsInvalidDataSchema,
  OutboundDeliveryDetailSchema, OutboundDeliveryViewSchema, OutboundEventSchema, RecoverDeliveriesReplySchema,
  WebhookEndpointSecretReplySchema, WebhookEndpointViewSchema, WebhookTestDataSchema, WebhookTestResultSchema,
  type ConversationListItem, type OutboundAgentData, type OutboundAttemptView, type OutboundDeliveryView, type OutboundEvent, type WebhookEndpointView,
} from '@voice/contracts';
import { dateTime, string, type JsonSchema } from './json-schema.js';
import { payloadSchema } from './payload-schema.js';
import { componentName } from './call-event-schema.js';
import { CONVERSATION_DETAIL_EXAMPLE } from './examples.js';
import { embeddedExample, viewComponent } from './view-component.js';

/** The outbound views name no other component. */
const NAMED = new Map<TSchema, string>();

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

/** Shared by create and update: what the payload classes' decorators cannot carry. */
const endpointAnnotations: Record<string, JsonSchema> = {
  url: { format: 'uri', description: 'Absolute https URL, no credentials; redirects are not followed.' },
  event_types: { description: 'Only these event types, each kept once; null or absent: all (an unknown type is 400 invalid_parameter with valid_values).' },
  agent_ids: { description: 'Only these agents’ events, each kept once; null or absent: all.' },
  enabled: { description: 'false: nothing is delivered to it (status disabled).' },
};

const createRequest = payloadSchema(CreateWebhookEndpointPayload, {
  annotations: endpointAnnotations,
  examples: [{ url: ENDPOINT_EXAMPLE.url, description: ENDPOINT_EXAMPLE.description, event_types: ['conversation.ended'] }],
});
// notifications-service refuses a PATCH that changes nothing in code (invalid_request).
const updateRequest = payloadSchema(UpdateWebhookEndpointPayload, { minProperties: 1, annotations: endpointAnnotations, examples: [{ enabled: false }] });
const recoverRequest = payloadSchema(RecoverDeliveriesPayload, {
  annotations: { since: { description: 'An ISO 8601 date (midnight UTC) or instant, not in the future.' } },
  examples: [{ since: '2025-03-01T00:00:00Z' }],
});

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
const AGENT_DATA_EXAMPLE: OutboundAgentData = {
  agent: { id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e', name: 'Front desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
  version: 1,
};
const EVENT_EXAMPLE: OutboundEvent = {
  id: DELIVERY_EXAMPLE.event_id,
  type: 'agent.created',
  timestamp: '2025-03-01T10:00:00.000Z',
  data: AGENT_DATA_EXAMPLE,
};
const ATTEMPT_EXAMPLE: OutboundAttemptView = {
  attempted_at: '2025-03-01T10:01:00.000Z', status_code: 503, error: null, duration_ms: 84, response_body: 'Service Unavailable',
};
const SECRET_REPLY_EXAMPLE = { secret: SECRET_EXAMPLE };

export function webhookEndpointComponents(): Record<string, JsonSchema> {
  return {
    WebhookEndpoint: viewComponent(WebhookEndpointViewSchema, NAMED, [ENDPOINT_EXAMPLE]),
    CreatedWebhookEndpoint: viewComponent(CreatedWebhookEndpointSchema, NAMED, [{ ...ENDPOINT_EXAMPLE, ...SECRET_REPLY_EXAMPLE }]),
    WebhookEndpointSecret: viewComponent(WebhookEndpointSecretReplySchema, NAMED, [SECRET_REPLY_EXAMPLE]),
    OutboundDelivery: viewComponent(OutboundDeliveryViewSchema, NAMED, [DELIVERY_EXAMPLE]),
    OutboundDeliveryDetail: viewComponent(
      OutboundDeliveryDetailSchema,
      NAMED,
      [{ ...DELIVERY_EXAMPLE, attempts: [ATTEMPT_EXAMPLE] }],
      new Map([embeddedExample(OutboundAttemptViewSchema, [ATTEMPT_EXAMPLE])]),
    ),
    RecoverDeliveriesRequest: recoverRequest,
    RecoverDeliveriesReply: viewComponent(RecoverDeliveriesReplySchema, NAMED, [{ deliveries: 3 }]),
    OutboundEvent: viewComponent(OutboundEventSchema, NAMED, [EVENT_EXAMPLE]),
    WebhookTestResult: viewComponent(WebhookTestResultSchema, NAMED, [
      { event_id: EVENT_EXAMPLE.id, delivery_id: DELIVERY_EXAMPLE.id, succeeded: true, status_code: 200, error: null, duration_ms: 42, response_body: 'ok' },
    ]),
    CreateWebhookEndpointRequest: createRequest,
    UpdateWebhookEndpointRequest: updateRequest,
  };
}

/** The views the webhooks section embeds that are components of their own. */
const NAMED_IN_WEBHOOKS = new Map<TSchema, string>([
  [ConversationListItemSchema, 'ConversationListItem'],
  ...Object.entries(CALL_EVENT_DEFINITION_SCHEMAS).map(([definition, schema]) => [schema, componentName(definition)] as const),
]);
const CONVERSATION_ITEM_EXAMPLE: ConversationListItem = {
  id: 'call_01HZX3', agent_id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e', agent_name: 'Front desk', caller_number: '+14155550123', status: 'completed',
  start_time: '2025-03-01T10:00:00Z', end_time: '2025-03-01T10:03:05Z', duration: 185, sentiment: 'positive', outcome: 'appointment_booked',
  topics: ['booking'], has_recording: true, has_transcript: true, summary: 'Booked a cleaning for Tuesday.', created_at: '2025-03-01T10:00:01.000Z',
};

interface OutboundWebhook {
  type: OutboundEvent['type'];
  summary: string;
  data: JsonSchema;
  example: unknown;
}
/** An event type whose `data` is the schema's, with an example of it. */
const outboundWebhook = <S extends TSchema>(type: OutboundEvent['type'], summary: string, schema: S, example: Static<S>): OutboundWebhook => ({
  type, summary, data: viewComponent(schema, NAMED_IN_WEBHOOKS), example,
});

/** Each event type a webhook endpoint receives, as the OpenAPI 3.1 `webhooks` section describes it. */
const OUTBOUND_WEBHOOKS: OutboundWebhook[] = [
  outboundWebhook('conversation.started', 'A call began.', OutboundConversationDataSchema, {
    conversation: { ...CONVERSATION_ITEM_EXAMPLE, status: 'in_progress', end_time: null, duration: 0 }, sequence: 1,
  }),
  outboundWebhook(
    'conversation.updated',
    'A call’s list fields changed while it runs, or after its end (an analysis arriving late).',
    OutboundConversationDataSchema,
    { conversation: CONVERSATION_ITEM_EXAMPLE, sequence: 5 },
  ),
  outboundWebhook(
    'conversation.ended',
    'A call completed, failed or was abandoned: its full record (GET /v1/conversations/{id}), the transcript left out past 256 KiB (then transcript_url).',
    OutboundConversationEndedDataSchema,
    { conversation: CONVERSATION_DETAIL_EXAMPLE, sequence: 4 },
  ),
  outboundWebhook('agent.created', 'An agent was created.', OutboundAgentDataSchema, AGENT_DATA_EXAMPLE),
  outboundWebhook('agent.updated', 'An agent changed (also paused, resumed, or given its number).', OutboundAgentDataSchema, AGENT_DATA_EXAMPLE),
  outboundWebhook('agent.deleted', 'An agent was deleted.', OutboundAgentDataSchema, AGENT_DATA_EXAMPLE),
  outboundWebhook(
    'agent.sync_failed',
    'Keeping an agent live on its voice platform failed (each failure once; a transient one is retried on a backoff).',
    OutboundAgentSyncFailedDataSchema,
    {
      ...AGENT_DATA_EXAMPLE,
      failure: { code: 'platform_rejected', message: 'platform_a rejected the agent (400): unknown voice', field: 'voice_id', permanent: true, platform: 'platform_a', attempt: 1 },
    },
  ),
  outboundWebhook(
    'integration.credentials_invalid',
    'A voice platform refused the account’s stored API key (once, until the integration is configured again).',
    OutboundCredentialsInvalidDataSchema,
    { platform: 'platform_a', detected_at: '2025-03-01T10:02:00.000Z', reason: 'platform_a refused the stored API key while an agent was being synced to it.' },
  ),
  outboundWebhook(
    'webhook_endpoint.disabled',
    'Another endpoint of the account was disabled after its deliveries kept failing.',
    EndpointDisabledDataSchema,
    { endpoint_id: ENDPOINT_EXAMPLE.id, url: ENDPOINT_EXAMPLE.url, reason: '1000 deliveries failed in a row' },
  ),
  outboundWebhook('webhook.test', 'Sent by POST /v1/webhook-endpoints/{id}/test.', WebhookTestDataSchema, { endpoint_id: ENDPOINT_EXAMPLE.id }),
];

const signatureHeaders = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id: the same on every attempt, for de-duplication.', schema: string({ maxLength: 64 }), example: EVENT_EXAMPLE.id },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of the attempt; refuse one far from your clock.', schema: string({ maxLength: 16 }), example: '1740823200' },
  {
    name: 'webhook-signature', in: 'header', required: true,
    description: 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> per secret, space-separated (two during a rotation). Verify with a Standard Webhooks library.',
    schema: string({ maxLength: 256 }), example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/** The `webhooks` section: what each endpoint is POSTed, one entry per event type. */
export function outboundWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    OUTBOUND_WEBHOOKS.map(({ type, summary, data, example }) => [
      type,
      {
        post: {
          summary,
          description: 'Signed per Standard Webhooks. Answer 2xx within 15 s; anything else is retried on the schedule. Order across events is not guaranteed.',
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object', required: ['id', 'type', 'timestamp', 'data'], additionalProperties: false,
                  properties: { id: string(), type: { type: 'string', const: type }, timestamp: dateTime, data },
                },
                example: { id: EVENT_EXAMPLE.id, type, timestamp: EVENT_EXAMPLE.timestamp, data: example },
              },
            },
          },
          responses: { '200': { description: 'Received (any 2xx).' } },
        },
      },
    ]),
  );
}
