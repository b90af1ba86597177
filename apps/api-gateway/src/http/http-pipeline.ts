import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import { Headers, isStorableText, type ServiceError } from '@voice/contracts';
import { requestContext } from '@voice/service-kit';
import type { Duplex } from 'node:stream';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { serveConsole } from '../console/console-app.js';
import { errorEnvelope } from './envelope.js';
import type { Logger } from 'pino';
import { ApiFailure } from './api-failure.js';
import type { GatewayRequest } from './gateway-request.js';
import { findInputProblem, MAX_JSON_DEPTH, printable } from './input-sanity.js';
import { resolveRequestId } from './request-id.js';
import { matchRoute, type RouteEntry } from './route-table.js';
import { writeError } from './write-error.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** A two-hour call's transcript with word timings is several MB: platform webhooks may carry up to 10 MiB. */
export const MAX_WEBHOOK_BODY_BYTES = 10 * 1024 * 1024;
/** Platform webhooks: their signature is over the exact bytes received, so the body is kept raw (a Buffer). */
export const WEBHOOK_PATH_PREFIX = '/v1/webhooks/';

export function isWebhookPath(path: string): boolean {
  return path.toLowerCase().startsWith(WEBHOOK_PATH_PREFIX);
}
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `application/json` and any `application/<something>+json`, whatever their parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[^/\s]+\+json$/.test(type);
}

/** The text before `?`: the path as received, undecoded (what routing and the logs see). */
function pathOfUrl(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The steps every request takes around Nest's router, as Fastify hooks: request id and access log, the
 * console's files, route/method/media-type check (before the body is read), the body parser with its own
 * error mapping (a webhook's body stays raw bytes, any other is JSON), the input sanity check, then the
 * async request context. The context is entered only after the body is parsed because AsyncLocalStorage does
 * not survive the request stream's 'data'/'end' events.
 */
export function installHttpPipeline(server: FastifyInstance, routes: RouteEntry[], logger: Logger): void {
  // Declared once, so every request object has the same shape (Fastify's advice for speed).
  server.decorateRequest('requestId', '');
  server.decorateRequest('path', '');
  server.decorateRequest('caller', undefined);
  server.addHook('onRequest', assignRequestId(logger));
  // The operator console's files and client-side routes (/app/...) are not API routes.
  server.addHook('onRequest', serveConsole());
  server.addHook('onRequest', checkRoute(routes));
  // Webhooks may be larger than any other body (MAX_WEBHOOK_BODY_BYTES); the rest keep the instance's limit.
  server.addHook('onRoute', (route) => {
    if (typeof route.url === 'string' && isWebhookPath(route.url)) route.bodyLimit = MAX_WEBHOOK_BODY_BYTES;
  });
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'buffer' }, parseBody);
  server.addHook('preHandler', refuseUnrepresentableInput());
  server.addHook('preHandler', enterRequestContext);
}

/** The Fastify options the pipeline relies on: the body limit, routing as the route table matches, the router's own refusals. */
export function pipelineServerOptions(routes: RouteEntry[], logger: Logger) {
  return {
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: {
      // As the route table: paths match case-insensitively, with or without a trailing slash,
      // and a path segment may be as long as the request line allows (ids are judged by the services, not refused here).
      caseSensitive: false,
      ignoreTrailingSlash: true,
      maxParamLength: 64 * 1024,
    },
    /** A URL the router cannot decode is answered here, before any hook: as the route table would (an unknown path or resource). */
    frameworkErrors: (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      const requestId = resolveRequestId(req.headers[Headers.requestId]);
      reply.header('X-Request-Id', requestId);
      const path = pathOfUrl(req.raw.url ?? '/');
      logger.info({ request_id: requestId, method: req.method, path, reason: error.code }, 'request refused by the router');
      if (matchRoute(routes, req.method, path).kind === 'not_found') {
        writeError(reply, requestId, { code: 'route_not_found', message: `No route matches ${req.method} ${path}.` });
      } else {
        writeError(reply, requestId, { code: 'not_found', message: 'No resource exists at this path.' });
      }
    },
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an unknown method, a malformed request
 * line or header, headers or a body too slow) would otherwise get a bare 400: give them the envelope and a
 * request id too. Fastify's `clientErrorHandler`.
 */
export function answerMalformedRequests(logger: Logger): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (!socket.writable || !(timedOut || err.code?.startsWith('HPE_'))) {
      socket.destroy();
      return;
    }
    const requestId = resolveRequestId(undefined);
    logger.info({ request_id: requestId, reason: err.code }, timedOut ? 'slow HTTP request cut off' : 'malformed HTTP request refused');
    const [status, error] = timedOut
      ? (['408 Request Timeout', { code: 'request_timeout', message: 'The request (its headers, or all of it) did not arrive in time.' }] as const)
      : (['400 Bad Request', { code: 'invalid_request', message: `The request is not valid HTTP/1.1 (${err.code}).` }] as const);
    const body = JSON.stringify(errorEnvelope(error, requestId));
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

function assignRequestId(logger: Logger): onRequestHookHandler {
  return (request, reply, done) => {
    const req = request as GatewayRequest;
    const requestId = resolveRequestId(req.headers[Headers.requestId]);
    req.requestId = requestId;
    req.path = pathOfUrl(req.url);
    reply.header('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const res = reply.raw;
    // 'close' also fires when the client goes away mid-request, which 'finish' would miss.
    res.on('close', () => {
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request completed',
      );
    });
    done();
  };
}

function checkRoute(routes: RouteEntry[]): onRequestHookHandler {
  return (request, reply, done) => {
    const req = request as GatewayRequest;
    const match = matchRoute(routes, req.method, req.path);
    if (match.kind === 'not_found') {
      writeError(reply, req.requestId, { code: 'route_not_found', message: `No route matches ${req.method} ${req.path}.` });
      return;
    }
    if (match.kind === 'method_not_allowed') {
      const allow = match.allow.join(', ');
      if (req.method === 'OPTIONS') {
        reply.status(204).header('Allow', allow).send();
        return;
      }
      writeError(
        reply,
        req.requestId,
        { code: 'method_not_allowed', message: `${req.method} is not allowed on ${req.path}. Allowed: ${allow}.` },
        { Allow: allow },
      );
      return;
    }
    // Webhooks are the platform's bytes, whatever it labels them: the signature decides, not the Content-Type.
    // An empty body (Content-Length: 0, what clients send for a body-less POST such as a replay) is no body.
    const contentType = req.headers['content-type'];
    const empty = req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
    if (BODY_METHODS.has(req.method) && !empty && !isWebhookPath(req.path) && !isJsonMediaType(contentType)) {
      writeError(reply, req.requestId, {
        code: 'unsupported_media_type',
        message: `Request bodies must be JSON (Content-Type: application/json), got ${contentType ?? 'no Content-Type'}.`,
      });
      return;
    }
    done();
  };
}

const decoders: Record<string, (body: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** The body limit of the request's route (a webhook's is larger), what Fastify enforced while reading it. */
function bodyLimitOf(req: FastifyRequest): number {
  return isWebhookPath((req as GatewayRequest).path) ? MAX_WEBHOOK_BODY_BYTES : MAX_BODY_BYTES;
}

function tooLarge(req: FastifyRequest): ApiFailure {
  return new ApiFailure(
    isWebhookPath((req as GatewayRequest).path)
      ? { code: 'payload_too_large', message: `The webhook body exceeds ${MAX_WEBHOOK_BODY_BYTES} bytes (10 MiB).` }
      : { code: 'payload_too_large', message: `The request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB).` },
  );
}

/** The body's bytes with its Content-Encoding undone (clients may compress what they send); the limit holds for the decoded size. */
function decoded(req: FastifyRequest, body: Buffer): Buffer {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return body;
  const decode = decoders[encoding];
  if (!decode) throw new ApiFailure({ code: 'unsupported_media_type', message: `Unsupported content encoding "${encoding}".` });
  try {
    return decode(body, { maxOutputLength: bodyLimitOf(req) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(req);
    throw new ApiFailure({ code: 'invalid_request', message: `The request body could not be read: ${(err as Error).message}.` });
  }
}

const UTF8_CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/**
 * Every body, whatever its Content-Type (checkRoute has refused the non-JSON ones): a webhook's stays its raw
 * bytes (its signature is over them), any other is a JSON object or array. An empty body is no body.
 */
function parseBody(request: FastifyRequest, raw: Buffer | string, done: (err: Error | null, body?: unknown) => void): void {
  const req = request as GatewayRequest;
  try {
    const body = decoded(req, Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
    if (isWebhookPath(req.path)) return done(null, body);
    const charset = UTF8_CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && !charset.startsWith('utf-')) {
      throw new ApiFailure({ code: 'unsupported_media_type', message: `Unsupported charset "${charset.toUpperCase()}".` });
    }
    // No bytes: no body when the length said so (Content-Length: 0), an empty object when a chunked body turned out empty.
    if (body.length === 0) return done(null, req.headers['content-length'] === undefined ? {} : undefined);
    const text = body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new ApiFailure({ code: 'invalid_json', message: `The request body is not valid JSON: ${(err as Error).message}` });
    }
    // Valid JSON that is not an object or array (`null`, `"text"`): say that, not "invalid".
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ApiFailure({ code: 'invalid_request', message: 'The request body must be a JSON object.' });
    }
    done(null, parsed);
  } catch (err) {
    done(err as Error);
  }
}

/**
 * What the client is told when its body could not be read: Fastify's own refusals while reading it (too large,
 * shorter than its Content-Length); undefined for any other error.
 */
export function bodyReadFailure(err: unknown, req: FastifyRequest): ServiceError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('FST_ERR_CTP_')) return undefined;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(req).detail;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_TYPE':
      return { code: 'unsupported_media_type', message: 'Unsupported request body.' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'invalid_json', message: 'The request body is empty.' };
    default:
      return { code: 'invalid_request', message: 'The request body was incomplete.' };
  }
}

/** See input-sanity.ts: values no layer behind the gateway can carry become a precise 400 (or 404 for a path). */
function refuseUnrepresentableInput() {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const req = request as GatewayRequest;
    let segments: string[];
    try {
      segments = req.path.split('/').map(decodeURIComponent);
    } catch {
      segments = [];
    }
    // No resource id can hold such characters: the resource does not exist, exactly like any unknown id.
    if (segments.length === 0 || segments.some((segment) => !isStorableText(segment))) {
      writeError(reply, req.requestId, { code: 'not_found', message: 'No resource exists at this path.' });
      return;
    }
    // Query parameters (names included) first, then the body; the query parser is flat, so only the body can be too deep.
    // A webhook body is a Buffer checked by its signature and then by the platform mapping, not here.
    const problem = findInputProblem(req.query) ?? (Buffer.isBuffer(req.body) ? undefined : findInputProblem(req.body));
    if (problem?.kind === 'too_deep') {
      writeError(reply, req.requestId, {
        code: 'invalid_request',
        field: printable(problem.field),
        message: `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels.`,
      });
      return;
    }
    if (problem) {
      const field = printable(problem.field);
      writeError(reply, req.requestId, {
        code: 'invalid_parameter',
        field,
        message: `${field} contains a character this API cannot store (U+0000 or an unpaired UTF-16 surrogate).`,
      });
      return;
    }
    done();
  };
}

function enterRequestContext(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  requestContext.run({ requestId: (request as GatewayRequest).requestId }, () => done());
}
