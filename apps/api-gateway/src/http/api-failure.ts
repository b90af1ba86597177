import type { ErrorCode, ServiceError } from '@voice/contracts';

/**
 * A failure the gateway itself decides (auth, preconditions, unavailable
 * services) or one relayed from a service. The exception filter turns it into
 * the error envelope; `headers` carries e.g. `WWW-Authenticate` or `Allow`.
 */
export class ApiFailure extends Error {
  constructor(readonly detail: ServiceError, readonly headers: Record<string, string> = {}) {
    super(detail.message);
  }
}

export function apiFailure(
  code: ErrorCode,
  message: string,
  extra: Omit<ServiceError, 'code' | 'message'> = {},
  headers: Record<string, string> = {},
): ApiFailure {
  return new ApiFailure({ code, message, ...extra }, headers);
}

/** What a client is told about a failure we did not anticipate; the details go to the logs under the same request id. */
export const INTERNAL_ERROR: ServiceError = {
  code: 'internal_error',
  message: 'An unexpected error occurred. Quote the request_id when reporting it.',
};
