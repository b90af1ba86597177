import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { isErrorCode, type ErrorCode, type ServiceError } from '@voice/contracts';
import type { Logger } from 'pino';
import { throwError, type Observable } from 'rxjs';
import { classifyFailure } from '../database/pg-errors.js';

/**
 * Nest turns anything but an RpcException into "Internal server error" on the
 * caller's side, so every domain error leaves a service as an RpcException
 * carrying a structured ServiceError the gateway maps to HTTP.
 */
export class ServiceFailure extends RpcException {
  constructor(readonly detail: ServiceError) {
    super(detail);
  }
}

export function fail(code: ErrorCode, message: string, extra: Omit<ServiceError, 'code' | 'message'> = {}): never {
  throw new ServiceFailure({ code, message, ...extra });
}

export function isServiceError(value: unknown): value is ServiceError {
  return (
    typeof value === 'object' &&
    value !== null &&
    isErrorCode((value as { code?: unknown }).code) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** Last line of defence in a microservice: structured errors pass, anything else becomes internal_error. */
@Catch()
export class ServiceErrorFilter implements RpcExceptionFilter {
  constructor(private readonly logger: Logger) {}
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    if (exception instanceof RpcException && isServiceError(exception.getError())) {
      return throwError(() => exception.getError());
    }
    // The same classification as the gateway's HTTP filter, so a service and the gateway agree on what an outage is.
    if (classifyFailure(exception) === 'outage') {
      this.logger.error({ err: exception }, 'database unavailable');
      const unavailable: ServiceError = { code: 'service_unavailable', message: 'The service cannot reach its database right now; retry later.' };
      return throwError(() => unavailable);
    }
    this.logger.error({ err: exception }, 'unhandled error in message handler');
    const internal: ServiceError = { code: 'internal_error', message: 'An unexpected error occurred.' };
    return throwError(() => internal);
  }
}
