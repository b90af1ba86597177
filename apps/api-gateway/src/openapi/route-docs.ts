import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { MAX_ID_LENGTH, PAGINATION, type ErrorCode } from '@voice/contracts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency.rules.js';
import { ref, type JsonSchema } from './json-schema.js';

/** Error codes a handler itself (or the service behind it) can answer; access and body errors are added from the route's shape. */
export const API_ERRORS_METADATA = 'gateway:api-errors';
export const ApiErrors = (...codes: ErrorCode[]) => SetMetadata(API_ERRORS_METADATA, codes);

export const RESPONSE_HEADERS = {
  'X-Request-Id': { required: true, description: 'The request id (the caller’s X-Request-Id when valid, else a UUID); also in meta/error.request_id.', schema: { type: 'string' } },
  Location: { required: true, description: 'Path of the created resource.', schema: { type: 'string' }, example: '/v1/agents/agt_5f0c3b8a9d2e4f6a7b8c9d0e' },
  ETag: { required: true, description: 'The agent’s version; send it back in If-Match.', schema: { type: 'string', pattern: '^"[0-9]+"$' }, example: '"3"' },
  'Content-Disposition': { description: 'Non-JSON transcript formats are downloads.', schema: { type: 'string' }, example: 'attachment; filename="call_01HZX3.srt"' },
  Vary: { required: true, description: 'The representation depends on Accept when ?format= is absent.', schema: { type: 'string' }, example: 'Accept' },
  'Cache-Control': { required: true, description: 'The body holds a secret.', schema: { type: 'string', const: 'no-store' } },
  'WWW-Authenticate': { required: true, description: 'Bearer challenge.', schema: { type: 'string' }, example: 'Bearer error="invalid_token"' },
  'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'string' }, example: '1' },
  'RateLimit-Limit': {
    required: true,
    description: 'Requests the budget this request spent from (reads, writes or call events; of the API key, or of its account when that is tighter) holds when full.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '200',
  },
  'RateLimit-Remaining': { required: true, description: 'Requests left in that budget right now.', schema: { type: 'string', pattern: '^[0-9]+$' }, example: '199' },
  'RateLimit-Reset': { required: true, description: 'Seconds until that budget is full again.', schema: { type: 'string', pattern: '^[0-9]+$' }, example: '1' },
  [IDEMPOTENT_REPLAYED_HEADER]: {
    required: false,
    description: 'Present (true) when this is the stored answer of an earlier request with the same Idempotency-Key, replayed: nothing was done again.',
    schema: { type: 'string', const: 'true' },
    example: 'true',
  },
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

export const envelopeOf = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: { data, meta: ref('Meta') },
  additionalProperties: false,
});
export const listEnvelopeOf = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['data', 'meta', 'links'],
  properties: { data: { type: 'array', items: item }, meta: ref('PageMeta'), links: ref('PageLinks') },
  additionalProperties: false,
});

/** What an envelope built by envelopeOf or listEnvelopeOf wraps: the component's name and whether it is a list; undefined for any other schema. */
export function envelopedComponent(schema: unknown): { component: string; list: boolean } | undefined {
  const data = (schema as { properties?: { data?: { $ref?: unknown; type?: unknown; items?: { $ref?: unknown } } } } | undefined)?.properties?.data;
  const target = data?.type === 'array' ? data.items?.$ref : data?.$ref;
  if (typeof target !== 'string' || !target.startsWith('#/components/schemas/')) return undefined;
  return { component: target.slice('#/components/schemas/'.length), list: data?.type === 'array' };
}

const headersOf = (names: ResponseHeader[]) => Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]));

/** A success answer in the `{ data, meta }` envelope (or the list envelope). */
export function ApiEnvelope(
  status: number,
  schema: string,
  options: { description: string; list?: boolean; headers?: ResponseHeader[]; example?: unknown },
): MethodDecorator {
  const body = options.list ? listEnvelopeOf(ref(schema)) : envelopeOf(ref(schema));
  return ApiResponse({
    status,
    description: options.description,
    headers: headersOf(options.headers ?? []),
    content: { 'application/json': { schema: body, ...(options.example ? { example: options.example } : {}) } },
  });
}

export const ApiNoContent = (description: string) => ApiResponse({ status: 204, description });

/**
 * The groups of the docs page, in display order, each with the description the
 * document's top-level `tags` carries. An operation names exactly one of them
 * (ApiRoute), so a tag without a description cannot be introduced.
 */
export const API_TAGS = {
  Health: 'Health of the gateway and of what it depends on (database, NATS, agents-service, conversations-service). No authentication.',
  Agents: 'AI phone agents: create, list, read, update (pause and resume with status) and delete. Scopes agents:read and agents:write.',
  Conversations: 'The calls agents handled: list with filters and pagination, full detail, transcripts as JSON, text, SRT or WebVTT. Scope conversations:read.',
  'Call events': 'Ingest for voice platforms: call.started … call.ended events, one or a batch, de-duplicated by event id. Scope call_events:write.',
  Integrations:
    'The account’s credentials for each voice platform: configure (checked once with the platform), read and remove. Secrets are never returned. Scopes integrations:read and integrations:write.',
  Webhooks:
    'Where the voice platforms deliver calls (each integration’s webhook_url, authenticated by the platform’s signature), and the log of every verified delivery with replay. Scopes integrations:read and integrations:write.',
  'Webhook endpoints':
    'Where the account’s own systems are told about its calls and agents: signed outbound events (Standard Webhooks), retried on a schedule. Scopes webhooks:read and webhooks:write.',
  Events: 'The account’s outbound events (what its webhook endpoints are sent), newest first, with filters. Scope webhooks:read.',
  'API keys': 'Keys of the calling account: create (the secret is shown once), list and revoke. Scope api_keys:write.',
  'Audit log':
    'Who changed what in the account (keys, integrations, agents with the names of changed fields, webhook endpoints, data requests), from which request and address; append-only, kept 365 days. Scope audit:read.',
  Privacy:
    'Requests about one caller’s data: erasure (from every store, with tombstones) and access (one JSON document, downloadable for 24 hours). Scopes privacy:read and privacy:write.',
  Admin: 'Operator routes, authenticated with ADMIN_TOKEN instead of an API key; absent when no token is configured.',
  Documentation: 'This OpenAPI document and the interactive docs page. No authentication.',
} as const;
export type ApiTag = keyof typeof API_TAGS;

/** Summary and the operation's single tag (one of API_TAGS). */
export function ApiRoute(tag: ApiTag, summary: string, description?: string): MethodDecorator {
  return applyDecorators(ApiTags(tag), ApiOperation({ summary, ...(description ? { description } : {}) }));
}

export function ApiJsonBody(schema: JsonSchema, description?: string): MethodDecorator {
  return ApiBody({ required: true, description, schema: schema as never });
}

export const PATH_VALUE_DOCS_METADATA = 'gateway:path-value-docs';

/** What the operation of one value of a ServesPathValues route says of its own; the rest is the declared operation's. */
export interface PathValueDocs {
  summary: string;
  description: string;
  body: JsonSchema;
}

/** The docs of each path a ServesPathValues route serves (the document shows one operation per value). */
export const ApiPerPathValue = (docsFor: (value: string) => PathValueDocs) => SetMetadata(PATH_VALUE_DOCS_METADATA, docsFor);

export const ApiIdParam = (description: string) =>
  ApiParam({ name: 'id', required: true, description: `${description} A longer id than ${MAX_ID_LENGTH} characters matches nothing (404).`, schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } });

export const ApiIfMatch = (required: boolean) =>
  ApiHeader({
    name: 'If-Match',
    required,
    description:
      'The ETag of the version being changed, as returned ("<n>"), a comma-separated list of them, or *; when absent the change applies to the latest version. ' +
      'No strong tag matching the current version (weak W/"<n>" tags never match) is 412 precondition_failed; a value that is not an ETag list is 400 invalid_request.',
    schema: { type: 'string', examples: ['"3"'] },
  });

/** Operations that honour Idempotency-Key; the document adds its errors and the Idempotent-Replayed header. */
export const IDEMPOTENT_METADATA = 'gateway:idempotent';
/** What an Idempotency-Key can answer besides the operation's own errors (a malformed key is 400 invalid_request). */
export const IDEMPOTENCY_ERRORS: ErrorCode[] = ['invalid_request', 'idempotency_key_in_use', 'idempotency_key_reused'];

export const ApiIdempotencyKey = () =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_METADATA, true),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        `A key of your choosing (1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, e.g. a UUID) that makes retrying safe. ` +
        'Within 24 hours, a request with the same key, method, path and body gets the first answer again (same status and body, with ' +
        'Idempotent-Replayed: true) and nothing is done twice; the same key with another method, path or body is 422 idempotency_key_reused; ' +
        'while the first request is still being handled, 409 idempotency_key_in_use. 2xx and 4xx answers are kept; a 5xx is not (the retry runs ' +
        'again), except after a 503 because a service replied too late: the key then waits for that reply (409 meanwhile) and the retry gets it. ' +
        'Keys are per account.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$', examples: ['5f1d7c1e-2b0a-4c5e-9a59-6f1b8d3e2a47'] },
    }),
  );

/** page and per_page, shared by every list (declared in reverse: the document restores reading order, page first). */
export function ApiPagination(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'per_page',
      required: false,
      description: `1 to ${PAGINATION.maxPerPage}; a larger value is not refused but capped to ${PAGINATION.maxPerPage} (meta.per_page says so).`,
      schema: { type: 'integer', minimum: 1, maximum: PAGINATION.maxPerPage, default: PAGINATION.defaultPerPage },
    }),
    ApiQuery({ name: 'page', required: false, description: 'Starts at 1.', schema: { type: 'integer', minimum: 1, default: 1 } }),
  );
}

/** An optional query filter (unknown parameters are refused with invalid_parameter). */
export const ApiFilter = (name: string, schema: JsonSchema, description: string) =>
  ApiQuery({ name, required: false, description, schema: schema as never });
