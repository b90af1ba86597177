import type { INestApplication, Type } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CATALOG, httpStatusOf, type ErrorCode } from '@voice/contracts';
import { ACCESS_METADATA, type Access } from '../auth/access.decorators.js';
import { handlersOf } from '../http/route-table.js';
import { addOperationExamples } from './document-examples.js';
import { ERROR_EXAMPLES } from './error-examples.js';
import { REQUEST_ID_EXAMPLE } from './examples.js';
import { ref, type JsonSchema } from './json-schema.js';
import {
  API_ERRORS_METADATA, API_TAGS, IDEMPOTENCY_ERRORS, IDEMPOTENT_METADATA, PATH_VALUE_DOCS_METADATA, RESPONSE_HEADERS, type PathValueDocs, type ResponseHeader,
} from './route-docs.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency.rules.js';
import { outboundWebhooks } from './webhook-endpoint-schemas.js';
import { componentSchemas } from './schemas.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Answered by the HTTP pipeline before a handler runs, for any route that takes a body. */
const BODY_ERRORS: ErrorCode[] = ['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type'];

const DESCRIPTION = `Voice-agent operations API: create AI phone agents and read back every call they handled.

Authenticate with \`Authorization: Bearer <API key>\`, where the key is the opaque string an account or key creation
returned once (\`vk_\` and 40 letters or digits); each operation names the scope its key needs (\`x-required-scope\`).
The admin routes take the operator token (ADMIN_TOKEN) in the same header instead.
Successful answers are \`{ data, meta }\`; lists add pagination to \`meta\` and \`links\`. Every failure is
\`{ error: { type, code, message, field?, valid_values?, limit?, current?, request_id } }\`.
On every path an unknown path is 404 \`route_not_found\` and a known path with another method is 405
\`method_not_allowed\` (with \`Allow\`). Every response carries \`X-Request-Id\`.
Requests are rate limited per API key and per account, in three budgets (reads, writes, call events): answers to a key
carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds until the budget is full); an empty
budget is 429 \`rate_limited\` with \`Retry-After\`. Failed authentications are limited per client address the same way.
Lengths (\`maxLength\`, \`minLength\`, "characters" in messages) count Unicode code points, as JSON Schema does: an emoji
is one, a variation selector (U+FE0E, U+FE0F) or a combining mark one more.`;

/** The error codes a route can answer: its own plus those its access rule and body imply. */
export function errorCodesOf(access: Access | undefined, method: string, own: ErrorCode[]): ErrorCode[] {
  const implied: ErrorCode[] = [];
  if (access?.kind === 'scope') implied.push('authentication_required', 'invalid_api_key', 'insufficient_permissions', 'rate_limited', 'service_unavailable');
  if (access?.kind === 'admin') implied.push('authentication_required', 'invalid_api_key', 'rate_limited', 'service_unavailable');
  if (BODY_METHODS.has(method)) implied.push(...BODY_ERRORS);
  implied.push('internal_error');
  const codes = new Set([...own, ...implied]);
  return (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => codes.has(code));
}

function errorExample(code: ErrorCode): unknown {
  return { error: { type: ERROR_CATALOG[code].type, code, ...ERROR_EXAMPLES[code], request_id: REQUEST_ID_EXAMPLE } };
}

const WEBHOOK_AUTH_CODES: ReadonlySet<ErrorCode> = new Set(['invalid_signature', 'stale_timestamp']);

function errorResponse(codes: ErrorCode[]): Record<string, unknown> {
  const status = httpStatusOf(codes[0]);
  const headers: ResponseHeader[] = ['X-Request-Id'];
  // A bearer challenge belongs to the API-key 401s; a webhook's signature has no HTTP challenge scheme.
  if (status === 401 && !codes.every((code) => WEBHOOK_AUTH_CODES.has(code))) headers.push('WWW-Authenticate');
  if (status === 503) headers.push('Retry-After');
  if (status === 429) headers.push('Retry-After', ...RATE_LIMIT_HEADERS);
  const schema: JsonSchema = {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'object', allOf: [ref('Error')], properties: { code: { enum: codes } } } },
    additionalProperties: false,
  };
  return {
    description: `Error: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: Object.fromEntries(headers.map((h) => [h, RESPONSE_HEADERS[h]])),
    content: {
      'application/json': {
        schema,
        examples: Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }])),
      },
    },
  };
}

/** OpenAPI 3.0's `nullable: true` as 3.1 type arrays, wherever @nestjs/swagger still emits it. */
export function toJsonSchemaNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonSchemaNulls);
  if (value === null || typeof value !== 'object') return value;
  const { nullable, ...rest } = value as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, toJsonSchemaNulls(v)]));
  if (nullable !== true) return out;
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return { oneOf: [out, { type: 'null' }] };
}

/**
 * Answers decided before an Idempotency-Key is looked at (authentication, the HTTP pipeline) or by the key
 * itself: never stored, so never replayed.
 */
const NEVER_REPLAYED: ReadonlySet<ErrorCode> = new Set([
  'authentication_required', 'invalid_api_key', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'idempotency_key_in_use',
  'idempotency_key_reused', 'rate_limited',
]);

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;
/**
 * Statuses only answered once the key was authenticated and its budget spent, so they always carry the RateLimit
 * headers; the others may also come from before (the HTTP pipeline refusing a body or a path, an outage), where
 * the headers are present only when the request got that far. A 401 never has them: no key, no budget.
 */
const rateLimitedStatus = (status: number) => (status >= 200 && status < 300) || [403, 409, 412, 422, 429].includes(status);

/** Whether an answer with this status can be a replay: a success, or a 4xx with a code the handler itself answers. */
const replayable = (status: number, codes: ErrorCode[] | undefined) =>
  (status >= 200 && status < 300) || (status >= 400 && status < 500 && (codes ?? []).some((code) => !NEVER_REPLAYED.has(code)));

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The two ways a document and the served routes can disagree, as "METHOD /path"
 * lists: routes the controllers serve that the document lacks, and operations
 * the document has that no controller serves. The HTTP pipeline answers
 * route_not_found for anything outside the same controllers' route table, so
 * with both empty the document is exactly the API.
 */
export function documentationGaps(document: Pick<OpenAPIObject, 'paths'>, controllers: Type[]): { undocumented: string[]; unserved: string[] } {
  const served = new Set(handlersOf(controllers).map(({ method, path }) => `${method} ${openApiPath(path)}`));
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) if ((item as Record<string, unknown>)[method]) documented.add(`${method.toUpperCase()} ${path}`);
  }
  return {
    undocumented: [...served].filter((route) => !documented.has(route)).sort(),
    unserved: [...documented].filter((route) => !served.has(route)).sort(),
  };
}

/**
 * Each ServesPathValues route as the paths it serves, one operation per value (its parameter gone, its own
 * summary, description and body from ApiPerPathValue), in place of the declared path: the document lists
 * exactly what the route table answers.
 */
function expandPathValues(paths: OpenAPIObject['paths'], controllers: Type[]): void {
  const declared = new Set<string>();
  for (const { method, path, declaredPath, pathValue, handler } of handlersOf(controllers)) {
    if (!pathValue) continue;
    const verb = method.toLowerCase() as 'post';
    const template = paths[openApiPath(declaredPath)]?.[verb] as Record<string, any> | undefined;
    if (!template) continue;
    declared.add(`${verb} ${openApiPath(declaredPath)}`);
    const docs = (Reflect.getMetadata(PATH_VALUE_DOCS_METADATA, handler) as ((value: string) => PathValueDocs) | undefined)?.(pathValue.value);
    const operation: Record<string, any> = {
      ...structuredClone(template),
      operationId: `${template.operationId}_${pathValue.value}`,
      parameters: ((template.parameters ?? []) as Array<{ in: string; name: string }>).filter((p) => !(p.in === 'path' && p.name === pathValue.param)),
    };
    if (docs) {
      operation.summary = docs.summary;
      operation.description = docs.description;
      operation.requestBody = { required: true, content: { 'application/json': { schema: docs.body } } };
    }
    paths[openApiPath(path)] = { ...paths[openApiPath(path)], [verb]: operation as OpenAPIObject['paths'][string]['post'] };
  }
  for (const entry of declared) {
    const [verb, path] = entry.split(' ') as ['post', string];
    delete paths[path][verb];
    if (!HTTP_METHODS.some((m) => paths[path][m])) delete paths[path];
  }
}

const API_KEY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  // Not a JWT: an opaque random string, looked up (hashed) in the gateway's database.
  bearerFormat: 'vk_<40 letters or digits>',
  description:
    'An API key of an account, sent as `Authorization: Bearer vk_…`: an opaque string (not a JWT), `vk_` followed by 40 letters or digits, ' +
    'returned once by POST /v1/api-keys or by account creation. Each operation names the scope the key must hold (`x-required-scope`). ' +
    'The admin routes take the operator token (admin_token) in this same Authorization header instead.',
} as const;
const ADMIN_TOKEN_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description:
    'The operator token configured with ADMIN_TOKEN, sent in the same header as API keys: `Authorization: Bearer <ADMIN_TOKEN>`. ' +
    'An opaque string of the operator’s choosing; accepted only by the /v1/admin routes, which are absent (404) when no token is configured.',
} as const;

/**
 * The document of the running gateway: paths, parameters, bodies and success
 * responses come from the controllers' decorators through @nestjs/swagger;
 * security, the required scope and the error responses are derived here from
 * the same access metadata the guard enforces, so they cannot disagree.
 */
export function buildOpenApiDocument(app: INestApplication, controllers: Type[]): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Voice-agent operations API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0.0')
    .setOpenAPIVersion('3.1.0')
    // addSecurity, not addBearerAuth: the latter stamps bearerFormat "JWT" on every scheme.
    .addSecurity('api_key', API_KEY_SCHEME)
    .addSecurity('admin_token', ADMIN_TOKEN_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
    // Each operation names its one tag (ApiRoute); the automatic per-controller tag would list every operation twice on the docs page.
    autoTagControllers: false,
  });
  document.components = { ...document.components, schemas: componentSchemas() as never };
  expandPathValues(document.paths, controllers);

  for (const { method, path, handler } of handlersOf(controllers)) {
    const operation = document.paths[openApiPath(path)]?.[method.toLowerCase() as 'get'] as Record<string, any> | undefined;
    if (!operation) continue;
    const access = Reflect.getMetadata(ACCESS_METADATA, handler) as Access | undefined;
    if (access?.kind === 'scope') {
      operation.security = [{ api_key: [] }];
      operation['x-required-scope'] = access.scope;
      operation.description = `Requires an API key with the \`${access.scope}\` scope.${operation.description ? `\n\n${operation.description}` : ''}`;
    } else if (access?.kind === 'admin') {
      operation.security = [{ admin_token: [] }];
      operation['x-required-scope'] = 'admin';
      operation.description = `Requires the operator token (ADMIN_TOKEN); absent (404) when none is configured.${operation.description ? `\n\n${operation.description}` : ''}`;
    } else {
      operation.security = [];
    }

    const idempotent = Reflect.getMetadata(IDEMPOTENT_METADATA, handler) === true;
    const own = [
      ...((Reflect.getMetadata(API_ERRORS_METADATA, handler) as ErrorCode[] | undefined) ?? []),
      ...(idempotent ? IDEMPOTENCY_ERRORS : []),
    ];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodesOf(access, method, own)) {
      const status = httpStatusOf(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    // Swagger decorators apply bottom-up, so declared parameters arrive reversed; restore reading order, path first.
    const parameters = (operation.parameters ?? []) as Array<{ in: string }>;
    operation.parameters = [...parameters.filter((p) => p.in === 'path'), ...parameters.filter((p) => p.in !== 'path').reverse()];
    operation.responses ??= {};
    for (const [status, codes] of byStatus) {
      // A route may document its own body for a status (health's 503); keep it.
      if (!operation.responses[status]) operation.responses[status] = errorResponse(codes);
    }
    for (const [status, response] of Object.entries(operation.responses) as Array<[string, Record<string, any>]>) {
      response.headers = { 'X-Request-Id': RESPONSE_HEADERS['X-Request-Id'], ...response.headers };
      if (access?.kind === 'scope' && status !== '401') {
        for (const name of RATE_LIMIT_HEADERS) response.headers[name] = { ...RESPONSE_HEADERS[name], required: rateLimitedStatus(Number(status)) };
      }
      if (idempotent && replayable(Number(status), byStatus.get(Number(status)))) response.headers[IDEMPOTENT_REPLAYED_HEADER] = RESPONSE_HEADERS[IDEMPOTENT_REPLAYED_HEADER];
    }
  }
  addOperationExamples(document.paths as never, document.components.schemas as never);
  // OpenAPI 3.1: what the account's webhook endpoints are sent.
  document.webhooks = outboundWebhooks() as OpenAPIObject['webhooks'];
  // The groups of the docs page: those in use, in API_TAGS order, each with its description.
  const used = new Set(Object.values(document.paths).flatMap((item) => HTTP_METHODS.flatMap((m) => item[m]?.tags ?? [])));
  document.tags = Object.entries(API_TAGS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
  return toJsonSchemaNulls(document) as OpenAPIObject;
}
