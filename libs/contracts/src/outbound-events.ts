/**
 * Outbound events: what an account's systems are told through its webhook endpoints (notifications-service),
 * and the request-reply payloads the gateway sends that service for the /v1/webhook-endpoints routes.
 */
import { Type, type Static } from '@sinclair/typebox';
import { agentSnapshotFields } from './agent-snapshot.js';
import { VOICE_PLATFORMS } from './agents.js';
import { ConversationDetailSchema, ConversationListItemSchema, type ConversationDetail } from './conversations.js';
import type { AccountContext, RawQuery } from './rpc.js';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from './view-schema.js';

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

const endpointViewProperties = {
  id: Type.String({ examples: ['we_5f0c3b8a9d2e4f6a7b8c9d0e'] }),
  url: Type.String({ format: 'uri' }),
  description: NullableString(),
  /** null: every event type. */
  event_types: Nullable(Type.Array(StringEnum(OUTBOUND_EVENT_TYPES), { minItems: 1, uniqueItems: true })),
  /** null: every agent's events. */
  agent_ids: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: WEBHOOK_ENDPOINT_LIMITS.agentIds })),
  enabled: Type.Boolean(),
  status: StringEnum(WEBHOOK_ENDPOINT_STATUSES),
  disabled_reason: NullableString({ description: 'Why it is disabled; null while active.' }),
  secret_hint: Type.String({ description: 'The last 4 characters of the signing secret.' }),
  deliveries_last_24h: ClosedObject({ succeeded: Type.Integer({ minimum: 0 }), failed: Type.Integer({ minimum: 0 }) }),
  created_at: DateTime(),
  updated_at: DateTime(),
};
const webhookSecret = Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+=*$', description: 'Standard Webhooks secret: whsec_ and the base64 of 32 random bytes.' });

/** An endpoint as the API shows it: never its secret (only the last four characters). */
export const WebhookEndpointViewSchema = ClosedObject(endpointViewProperties, { description: 'A webhook endpoint, without its secret.' });
export type WebhookEndpointView = Static<typeof WebhookEndpointViewSchema>;

/** The 201 of a create: the view plus the signing secret (`whsec_…`), shown this once and by GET …/secret. */
export const CreatedWebhookEndpointSchema = ClosedObject({ ...endpointViewProperties, secret: webhookSecret }, { description: 'The new endpoint and its signing secret.' });
export type CreatedWebhookEndpoint = Static<typeof CreatedWebhookEndpointSchema>;

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
export const WebhookEndpointSecretReplySchema = ClosedObject({ secret: webhookSecret });
export type WebhookEndpointSecretReply = Static<typeof WebhookEndpointSecretReplySchema>;

/** The body of every delivery (Standard Webhooks: the `webhook-id` header is `id`). */
export const OutboundEventSchema = ClosedObject(
  {
    id: Type.String({ description: 'evt_…: the webhook-id header of each delivery.' }),
    type: StringEnum(OUTBOUND_EVENT_TYPES),
    timestamp: DateTime(),
    // Each event type has its own data; the document's webhooks section describes each.
    data: Type.Unsafe<unknown>({
      type: 'object',
      description: 'agent.created, agent.updated, agent.deleted: { agent, version }; agent.sync_failed: { agent, version, failure }; '
        + 'integration.credentials_invalid: { platform, detected_at, reason }; conversation.started, conversation.updated: '
        + '{ conversation: <ConversationListItem>, sequence }; conversation.ended: { conversation: <the full record>, sequence, transcript_url? } '
        + '(sequence: the conversation’s version).',
    }),
  },
  { description: 'An outbound event: the body of every delivery of it.' },
);
export type OutboundEvent = Static<typeof OutboundEventSchema>;

/** The `data` of agent.created, agent.updated and agent.deleted: the agent's snapshot after the change. */
export const OutboundAgentDataSchema = ClosedObject({
  agent: ClosedObject({ id: Type.String(), ...agentSnapshotFields }),
  version: Type.Integer({ minimum: 1, description: 'The agent’s version after the change: a receiver keeps the highest it saw.' }),
});
export type OutboundAgentData = Static<typeof OutboundAgentDataSchema>;

/** The `data` of conversation.started, conversation.updated and conversation.ended: the call as listed. */
export const OutboundConversationDataSchema = ClosedObject({
  conversation: ConversationListItemSchema,
  sequence: Type.Integer({ minimum: 1, description: 'The conversation’s version: drop an event whose sequence is below one already handled.' }),
});
export type OutboundConversationData = Static<typeof OutboundConversationDataSchema>;

/** The most an event's body may weigh (JSON bytes): a conversation.ended past it leaves its transcript out. */
export const MAX_OUTBOUND_EVENT_BYTES = 256 * 1024;
/** What a body holds besides its data's conversation: id, type, timestamp, sequence, transcript_url. */
const BODY_ALLOWANCE_BYTES = 1024;

const detailContent = ConversationDetailSchema.properties.content;
/** A call's full record as GET /v1/conversations/{id} shows it, its transcript left out when too big for an event. */
export const EndedConversationDetailSchema = ClosedObject(
  {
    ...ConversationDetailSchema.properties,
    content: ClosedObject(
      { ...detailContent.properties, transcript: Type.Optional(detailContent.properties.transcript) },
      { description: 'transcript is absent when the body would exceed 256 KiB: see transcript_url.' },
    ),
  },
  { description: 'The call’s full record (GET /v1/conversations/{id}); content.transcript absent past 256 KiB.' },
);
export type EndedConversationDetail = Static<typeof EndedConversationDetailSchema>;

/** Where the API serves a call's transcript (GET, scope conversations:read), relative to the public base URL. */
export const conversationTranscriptPath = (conversationId: string) => `/v1/conversations/${encodeURIComponent(conversationId)}/transcript`;

/**
 * The record as a conversation.ended event carries it: whole while the body stays within MAX_OUTBOUND_EVENT_BYTES,
 * else without its transcript (conversations-service leaves it out before the change goes on the bus, so a huge
 * transcript never makes a bus message; notifications-service checks again). Pure.
 */
export function endedDetailForEvent(detail: ConversationDetail | EndedConversationDetail): EndedConversationDetail {
  if (detail.content.transcript === undefined) return detail;
  if (utf8Bytes(JSON.stringify(detail)) <= MAX_OUTBOUND_EVENT_BYTES - BODY_ALLOWANCE_BYTES) return detail;
  const { transcript: _leftOut, ...content } = detail.content;
  return { ...detail, content };
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The `data` of conversation.ended: the call's full record; `transcript_url` only when the transcript was left out
 * (absolute when the deployment names its public address).
 */
export const OutboundConversationEndedDataSchema = ClosedObject({
  conversation: EndedConversationDetailSchema,
  sequence: Type.Integer({ minimum: 1, description: 'The conversation’s version: drop an event whose sequence is below one already handled.' }),
  transcript_url: Type.Optional(Type.String({ description: 'Present when content.transcript was left out (the body would exceed 256 KiB): GET it with a conversations:read key.' })),
});
export type OutboundConversationEndedData = Static<typeof OutboundConversationEndedDataSchema>;

/** The `data` of agent.sync_failed: the agent as the version the sync was for shows it, and what failed (never a secret). */
export const OutboundAgentSyncFailedDataSchema = ClosedObject({
  agent: ClosedObject({ id: Type.String(), ...agentSnapshotFields }),
  version: Type.Integer({ minimum: 1, description: 'The agent’s version the sync was for.' }),
  failure: ClosedObject({
    code: Type.String({ description: 'invalid_platform_credentials, platform_rejected, phone_number_in_use, phone_number_unavailable, platform_unavailable, …', examples: ['platform_rejected'] }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'Our field the platform objected to, when known (e.g. voice_id).' })),
    permanent: Type.Boolean({ description: 'false: retried on a backoff; true: waits for a change of the agent or of its integration.' }),
    platform: StringEnum(VOICE_PLATFORMS),
    attempt: Type.Optional(Type.Integer({ minimum: 1, description: 'Which try at this version (1 the first).' })),
  }),
});
export type OutboundAgentSyncFailedData = Static<typeof OutboundAgentSyncFailedDataSchema>;

/** The `data` of integration.credentials_invalid: a platform refused the account's stored API key (never the key). */
export const OutboundCredentialsInvalidDataSchema = ClosedObject({
  platform: StringEnum(VOICE_PLATFORMS),
  detected_at: DateTime(),
  reason: Type.String({ description: 'What refused the key, in words.' }),
});
export type OutboundCredentialsInvalidData = Static<typeof OutboundCredentialsInvalidDataSchema>;

/** The `data` of webhook_endpoint.disabled, sent to the account's other endpoints. */
export const EndpointDisabledDataSchema = ClosedObject({ endpoint_id: Type.String(), url: Type.String(), reason: Type.String() });
export type EndpointDisabledData = Static<typeof EndpointDisabledDataSchema>;

/** The `data` of webhook.test. */
export const WebhookTestDataSchema = ClosedObject({ endpoint_id: Type.String() });
export type WebhookTestData = Static<typeof WebhookTestDataSchema>;

/** The `data` of the events notifications-service sends. */
export type OutboundEventData =
  | OutboundAgentData | OutboundAgentSyncFailedData | OutboundCredentialsInvalidData | OutboundConversationData | OutboundConversationEndedData
  | EndpointDisabledData | WebhookTestData;

export const OUTBOUND_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type OutboundDeliveryStatus = (typeof OUTBOUND_DELIVERY_STATUSES)[number];

/** An HTTP status code, or null when no answer came. */
const NullableStatusCode = (options: { description?: string } = {}) => Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });

/** One attempt of a delivery: a status code when an answer came, else the error. */
export const OutboundAttemptViewSchema = ClosedObject({
  attempted_at: DateTime(),
  status_code: NullableStatusCode({ description: 'The answer’s status; null when none came (see error).' }),
  error: NullableString({ description: 'Why no answer counts: timeout, refused address, redirect, network…' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  response_body: NullableString({ maxLength: 1024, description: 'The first 1 KiB of the answer’s body.' }),
});
export type OutboundAttemptView = Static<typeof OutboundAttemptViewSchema>;

const deliveryViewProperties = {
  id: Type.String({ examples: ['dlv_0a1b2c3d4e5f6a7b8c9d0e1f'] }),
  endpoint_id: Type.String(),
  event_id: Type.String({ description: 'The event’s id: the webhook-id header of every attempt.' }),
  event_type: StringEnum(OUTBOUND_EVENT_TYPES),
  status: StringEnum(OUTBOUND_DELIVERY_STATUSES),
  attempt_count: Type.Integer({ minimum: 0 }),
  next_attempt_at: NullableString({ format: 'date-time', description: 'When the next attempt is due; null once succeeded or failed.' }),
  created_at: DateTime(),
  updated_at: DateTime(),
};

/** A delivery of one event to one endpoint, as the deliveries list shows it. */
export const OutboundDeliveryViewSchema = ClosedObject(deliveryViewProperties, { description: 'A delivery of one event to one endpoint.' });
export type OutboundDeliveryView = Static<typeof OutboundDeliveryViewSchema>;

/** GET …/deliveries/{delivery_id}: the delivery and every attempt, oldest first. */
export const OutboundDeliveryDetailSchema = ClosedObject(
  { ...deliveryViewProperties, attempts: Type.Array(OutboundAttemptViewSchema) },
  { description: 'A delivery with every attempt, oldest first.' },
);
export type OutboundDeliveryDetail = Static<typeof OutboundDeliveryDetailSchema>;

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
export const RecoverDeliveriesReplySchema = ClosedObject({ deliveries: Type.Integer({ minimum: 0 }) });
export type RecoverDeliveriesReply = Static<typeof RecoverDeliveriesReplySchema>;

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
export const WebhookTestResultSchema = ClosedObject(
  {
    event_id: Type.String(),
    delivery_id: Type.String(),
    succeeded: Type.Boolean({ description: 'A 2xx came within 15 s.' }),
    status_code: NullableStatusCode(),
    error: NullableString(),
    duration_ms: Type.Integer({ minimum: 0 }),
    response_body: NullableString({ maxLength: 1024 }),
  },
  { description: 'The test event’s attempt.' },
);
export type WebhookTestResult = Static<typeof WebhookTestResultSchema>;
