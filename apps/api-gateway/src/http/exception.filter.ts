import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode, ServiceError } from '@voice/contracts';
import { classifyFailure, isBrokenPipe, isServiceError, ServiceFailure } from '@voice/service-kit';
import type { Logger } from 'pino';
import { ApiFailure, INTERNAL_ERROR } from './api-failure.js';
import { pathOf, requestIdOf } from './gateway-request.js';
import { bodyReadFailure } from './http-pipeline.js';
import { PreparedAnswer } from './prepared-answer.js';
import { writeError } from './write-error.js';

/** Nest's own HTTP exceptions (e.g. its not-found handler) mapped onto our catalog by status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  404: 'route_not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * What the client is told for a failure the gateway knows how to describe (its own, a service's, Nest's
 * HTTP exceptions); undefined for anything else (an outage or a bug, decided by the filter).
 */
export function describedFailure(exception: unknown, req: FastifyRequest): { error: ServiceError; headers?: Record<string, string> } | undefined {
  if (exception instanceof ApiFailure) return { error: exception.detail, headers: exception.headers };
  if (exception instanceof ServiceFailure) return { error: exception.detail };
  if (isServiceError(exception)) return { error: exception };
  // Fastify's refusals while reading a body reach the filter as they are, or wrapped in an HttpException by Nest's adapter.
  const bodyFailure = bodyReadFailure(exception, req) ?? (exception instanceof HttpException ? bodyReadFailure(exception.cause, req) : undefined);
  if (bodyFailure) return { error: bodyFailure };
  if (exception instanceof HttpException) {
    const code = CODE_BY_STATUS[exception.getStatus()];
    if (code === 'route_not_found') return { error: { code, message: `No route matches ${req.method} ${pathOf(req)}.` } };
    if (code) return { error: { code, message: exception.message } };
  }
  return undefined;
}

/**
 * The single mapping from anything thrown while handling a request to the error
 * envelope. Unknown errors are logged with their stack and answered as a plain
 * internal_error: the client gets the request id to quote, never the details.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const res = http.getResponse<FastifyReply>();
    if (exception instanceof PreparedAnswer) {
      exception.write(res);
      return;
    }
    const { error, headers } = this.toError(exception, req);
    writeError(res, requestIdOf(req), error, headers);
  }

  private toError(exception: unknown, req: FastifyRequest): { error: ServiceError; headers?: Record<string, string> } {
    const described = describedFailure(exception, req);
    if (described) return described;
    // A write to a database socket the server already closed surfaces as a bare EPIPE in the gateway.
    if (classifyFailure(exception) === 'outage' || isBrokenPipe(exception)) {
      this.logger.warn({ err: exception, method: req.method, path: pathOf(req) }, 'a dependency is unavailable');
      return { error: { code: 'service_unavailable', message: 'A backing service is temporarily unavailable. Retry later.' } };
    }
    this.logger.error({ err: exception, method: req.method, path: pathOf(req) }, 'unexpected error while handling a request');
    return { error: INTERNAL_ERROR };
  }
}
