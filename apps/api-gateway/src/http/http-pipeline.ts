import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Headers, isStorableText } from '@voice/contracts';
import { requestContext } from '@voice/service-kit';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { serveConsole } from '../console/console-app.js';
import { errorEnvelope } from './envelope.js';
import type { Logger } from 'pino';
import { INTERNAL_ERROR } from './api-failure.js';
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
const JSON_TYPES = ['application/json', 'application/*+json'];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Express-level steps that run before Nest's router: request id, route/method
 * check, JSON body parsing with its own error mapping, then the async request
 * context. The context is entered only after the body is parsed because
 * AsyncLocalStorage does not survive the request stream's 'data'/'end' events.
 */
export function installHttpPipeline(app: NestExpressApplication, routes: RouteEntry[], logger: Logger): void {
  app.use(assignRequestId(logger));
  // The operator console's files and client-side routes (/app/...) are not API routes.
  app.use(serveConsole());
  app.use(checkRoute(routes));
  // Raw first: body-parser skips a body already read, so express.json never sees a webhook's.
  app.use(rawWebhookBodies());
  app.use(express.json({ limit: MAX_BODY_BYTES, type: JSON_TYPES, strict: true }));
  app.use(bodyParserErrors(logger));
  app.use(refuseUnrepresentableInput());
  app.use(enterRequestContext());
}

/**
 * Requests Node's HTTP parser refuses before Express sees them (an unknown method, a malformed request
 * line or header) would otherwise get Node's bare 400: give them the envelope and a request id too.
 */
export function answerMalformedRequests(server: Server, logger: Logger): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
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
  });
}

function assignRequestId(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = resolveRequestId(req.headers[Headers.requestId]);
    (req as GatewayRequest).requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
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
    next();
  };
}

function checkRoute(routes: RouteEntry[]): RequestHandler {
  return (req, res, next) => {
    const requestId = (req as GatewayRequest).requestId;
    const match = matchRoute(routes, req.method, req.path);
    if (match.kind === 'not_found') {
      writeError(res, requestId, { code: 'route_not_found', message: `No route matches ${req.method} ${req.path}.` });
      return;
    }
    if (match.kind === 'method_not_allowed') {
      const allow = match.allow.join(', ');
      if (req.method === 'OPTIONS') {
        res.status(204).set('Allow', allow).end();
        return;
      }
      writeError(
        res,
        requestId,
        { code: 'method_not_allowed', message: `${req.method} is not allowed on ${req.path}. Allowed: ${allow}.` },
        { Allow: allow },
      );
      return;
    }
    // req.is() is null when there is no body, false when the body is not JSON. Webhooks are the
    // platform's bytes, whatever it labels them: the signature decides, not the Content-Type.
    // An empty body (Content-Length: 0, what clients send for a body-less POST such as a replay) is no body.
    const empty = req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
    if (BODY_METHODS.has(req.method) && !empty && !isWebhookPath(req.path) && req.is(JSON_TYPES) === false) {
      writeError(res, requestId, {
        code: 'unsupported_media_type',
        message: `Request bodies must be JSON (Content-Type: application/json), got ${req.get('content-type') ?? 'no Content-Type'}.`,
      });
      return;
    }
    next();
  };
}

function rawWebhookBodies(): RequestHandler {
  const raw = express.raw({ limit: MAX_WEBHOOK_BODY_BYTES, type: () => true });
  return (req, res, next) => (isWebhookPath(req.path) ? raw(req, res, next) : next());
}

function bodyParserErrors(logger: Logger): ErrorRequestHandler {
  return (err: { type?: string; message?: string; status?: number; body?: string }, req, res, _next) => {
    const requestId = (req as GatewayRequest).requestId;
    switch (err.type) {
      case 'entity.parse.failed':
        // strict mode refuses valid JSON that is not an object or array (`null`, `"text"`): say that, not "invalid".
        if (isJson(err.body)) {
          writeError(res, requestId, { code: 'invalid_request', message: 'The request body must be a JSON object.' });
          return;
        }
        writeError(res, requestId, { code: 'invalid_json', message: `The request body is not valid JSON: ${err.message}` });
        return;
      case 'entity.too.large':
        writeError(
          res,
          requestId,
          isWebhookPath(req.path)
            ? { code: 'payload_too_large', message: `The webhook body exceeds ${MAX_WEBHOOK_BODY_BYTES} bytes (10 MiB).` }
            : { code: 'payload_too_large', message: `The request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB).` },
        );
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        writeError(res, requestId, { code: 'unsupported_media_type', message: err.message ?? 'Unsupported body encoding.' });
        return;
      case 'request.aborted':
      case 'request.size.invalid':
        writeError(res, requestId, { code: 'invalid_request', message: 'The request body was incomplete.' });
        return;
      default:
        // e.g. a body that says Content-Encoding: gzip but is not: the client's mistake, which the parser marks 4xx.
        if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
          writeError(res, requestId, { code: 'invalid_request', message: `The request body could not be read: ${err.message ?? 'malformed body'}.` });
          return;
        }
        logger.error({ err, request_id: requestId }, 'unexpected error while reading the request body');
        writeError(res, requestId, INTERNAL_ERROR);
    }
  };
}

function isJson(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** See input-sanity.ts: values no layer behind the gateway can carry become a precise 400 (or 404 for a path). */
function refuseUnrepresentableInput(): RequestHandler {
  return (req, res, next) => {
    const requestId = (req as GatewayRequest).requestId;
    let segments: string[];
    try {
      segments = req.path.split('/').map(decodeURIComponent);
    } catch {
      segments = [];
    }
    // No resource id can hold such characters: the resource does not exist, exactly like any unknown id.
    if (segments.length === 0 || segments.some((segment) => !isStorableText(segment))) {
      writeError(res, requestId, { code: 'not_found', message: 'No resource exists at this path.' });
      return;
    }
    // Query parameters (names included) first, then the body; Express 5's query parser is flat, so only
    // the body can be too deep.
    // A webhook body is a Buffer checked by its signature and then by the platform mapping, not here.
    const problem = findInputProblem(req.query) ?? (Buffer.isBuffer(req.body) ? undefined : findInputProblem(req.body));
    if (problem?.kind === 'too_deep') {
      writeError(res, requestId, {
        code: 'invalid_request',
        field: printable(problem.field),
        message: `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels.`,
      });
      return;
    }
    if (problem) {
      const field = printable(problem.field);
      writeError(res, requestId, {
        code: 'invalid_parameter',
        field,
        message: `${field} contains a character this API cannot store (U+0000 or an unpaired UTF-16 surrogate).`,
      });
      return;
    }
    next();
  };
}

function enterRequestContext(): RequestHandler {
  return (req, _res, next) => {
    requestContext.run({ requestId: (req as GatewayRequest).requestId }, () => next());
  };
}
