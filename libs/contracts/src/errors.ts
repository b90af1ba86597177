/**
 * The error envelope of section 7 of the interface, and every error code the
 * service emits. Services raise errors as { code, message, field?, ... } and the
 * gateway maps the code to the HTTP status and `type` below.
 */
import { Type, type Static } from '@sinclair/typebox';

export type ErrorType =
  | 'invalid_request'
  | 'validation_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'service_unavailable_error'
  | 'api_error';

export interface ErrorEnvelope {
  error: ApiError;
}

/** What a service puts in an RpcException: everything but the HTTP-facing `type`. */
export type ServiceError = Omit<ApiError, 'type' | 'request_id'>;

export const ERROR_CATALOG = {
  // 400
  invalid_request: { status: 400, type: 'invalid_request' },
  invalid_json: { status: 400, type: 'invalid_request' },
  invalid_parameter: { status: 400, type: 'invalid_request' },
  invalid_date_format: { status: 400, type: 'invalid_request' },
  missing_required_field: { status: 400, type: 'invalid_request' },
  // 401 / 403
  authentication_required: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  /** A webhook delivery whose signature is missing, malformed or wrong, or whose integration does not exist (one answer, so ids cannot be probed). */
  invalid_signature: { status: 401, type: 'authentication_error' },
  /** A correctly signed webhook delivery whose timestamp is more than five minutes from our clock. */
  stale_timestamp: { status: 401, type: 'authentication_error' },
  insufficient_permissions: { status: 403, type: 'permission_error' },
  quota_exceeded: { status: 403, type: 'permission_error' },
  /** The account's plan does not include this voice platform (the admin's voice_platforms list). */
  platform_not_enabled: { status: 403, type: 'permission_error' },
  // 404 / 405 / 412 / 413 / 415
  not_found: { status: 404, type: 'not_found_error' },
  route_not_found: { status: 404, type: 'not_found_error' },
  transcript_not_available: { status: 404, type: 'not_found_error' },
  /** An access request's document, 24 hours after it was ready: it has been deleted. */
  export_expired: { status: 410, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request' },
  precondition_failed: { status: 412, type: 'conflict_error' },
  payload_too_large: { status: 413, type: 'invalid_request' },
  unsupported_media_type: { status: 415, type: 'invalid_request' },
  not_acceptable: { status: 406, type: 'invalid_request' },
  /** A client too slow to send its request (headers, or all of it): the connection is closed. */
  request_timeout: { status: 408, type: 'invalid_request' },
  // 409 / 422
  concurrent_modification: { status: 409, type: 'conflict_error' },
  /** An access request's document before the request completed. */
  export_not_ready: { status: 409, type: 'conflict_error' },
  /** An integration cannot be removed while live agents of the account use its platform. */
  integration_in_use: { status: 409, type: 'conflict_error' },
  /** A request with this Idempotency-Key is still being handled: the retry waits and tries again. */
  idempotency_key_in_use: { status: 409, type: 'conflict_error' },
  duplicate_name: { status: 422, type: 'validation_error' },
  /** This Idempotency-Key was already used (within 24 h) for a request with another method, path or body. */
  idempotency_key_reused: { status: 422, type: 'validation_error' },
  platform_not_configured: { status: 422, type: 'validation_error' },
  phone_number_in_use: { status: 422, type: 'validation_error' },
  /** The voice platform has no number to sell (in the requested area). */
  phone_number_unavailable: { status: 422, type: 'validation_error' },
  /** The voice platform refused the agent's own data (an unknown voice, a field it cannot hold); `field` names ours when it can be mapped. */
  platform_rejected: { status: 422, type: 'validation_error' },
  /** The platform refused the integration's credentials (or its base URL) when they were checked. */
  invalid_platform_credentials: { status: 422, type: 'validation_error' },
  unknown_agent: { status: 422, type: 'validation_error' },
  /** A call that started once its agent was paused or deleted: the agent does not answer it. */
  agent_not_answering: { status: 422, type: 'validation_error' },
  // 429 / 5xx
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'service_unavailable_error' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The `error` of the error envelope (section 7): its code, the code's type, and what the code carries. */
export const ApiErrorSchema = Type.Object(
  {
    type: Type.Unsafe<ErrorType>({ type: 'string', enum: [...new Set(Object.values(ERROR_CATALOG).map((entry) => entry.type))] }),
    code: Type.Unsafe<ErrorCode>({ type: 'string', enum: Object.keys(ERROR_CATALOG) }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The request field (dotted/indexed path), parameter or header concerned.' })),
    valid_values: Type.Optional(Type.Array(Type.String())),
    limit: Type.Optional(Type.Integer({ description: 'With quota_exceeded: the plan’s agent limit.' })),
    current: Type.Optional(Type.Integer({ description: 'With quota_exceeded: the current agent count.' })),
    request_id: Type.String(),
  },
  { additionalProperties: false },
);
export type ApiError = Static<typeof ApiErrorSchema>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOG, value);
}

/** Build the public error object for a code (the gateway adds request_id). */
export function apiError(e: ServiceError): Omit<ApiError, 'request_id'> {
  const entry = ERROR_CATALOG[e.code];
  return { type: entry.type, ...e };
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code].status;
}
