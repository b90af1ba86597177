/** The delivery log's parameters: the list's query and recover's body. Pure. */
import { PAGINATION, OUTBOUND_DELIVERY_STATUSES, type ServiceError, type OutboundDeliveryStatus } from '@voice/contracts';

export interface DeliveryListParams {
  status?: OutboundDeliveryStatus;
  page: number;
  per_page: number;
}

const KNOWN = ['status', 'page', 'per_page'];
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** Ids in the house style; anything else is simply not found. */
export const DELIVERY_ID = /^dlv_[0-9a-f]{24}$/;

const problem = (code: ServiceError['code'], field: string, message: string, extra: Partial<ServiceError> = {}) => ({ problem: { code, field, message, ...extra } });

export function parseDeliveryListQuery(query: Record<string, unknown> = {}): DeliveryListParams | { problem: ServiceError } {
  const params: DeliveryListParams = { page: 1, per_page: PAGINATION.defaultPerPage };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (!KNOWN.includes(name)) return problem('invalid_parameter', name, `${name} is not a parameter of this list (parameters: ${KNOWN.join(', ')}).`);
    if (typeof value !== 'string') return problem('invalid_parameter', name, `${name} must be given at most once, as a plain value.`);
    if (name === 'status') {
      if (!(OUTBOUND_DELIVERY_STATUSES as readonly string[]).includes(value)) {
        return problem('invalid_parameter', 'status', `status must be one of ${OUTBOUND_DELIVERY_STATUSES.join(', ')}.`, { valid_values: [...OUTBOUND_DELIVERY_STATUSES] });
      }
      params.status = value as OutboundDeliveryStatus;
      continue;
    }
    const n = /^\d{1,15}$/.test(value) ? Number(value) : 0;
    if (n < 1) return problem('invalid_parameter', name, name === 'page' ? 'page must be an integer of at least 1.' : `per_page must be an integer from 1 to ${PAGINATION.maxPerPage}.`);
    if (name === 'page') params.page = n;
    else params.per_page = Math.min(n, PAGINATION.maxPerPage);
  }
  return params;
}

/** recover's body: `{ since }`, an ISO 8601 instant not in the future. */
export function parseRecoverBody(body: unknown, now: Date): { since: Date } | { problem: ServiceError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { problem: { code: 'invalid_request', message: 'The body must be a JSON object.' } };
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).find((key) => key !== 'since');
  if (unknown) return problem('invalid_parameter', unknown, `${unknown} is not a field of this request (fields: since).`);
  if (input.since === undefined || input.since === null) return problem('missing_required_field', 'since', 'since is required.');
  const since = typeof input.since === 'string' && ISO_INSTANT.test(input.since) ? new Date(input.since) : undefined;
  if (!since || Number.isNaN(since.getTime())) {
    return problem('invalid_date_format', 'since', 'since must be an ISO 8601 date or timestamp, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.');
  }
  if (since.getTime() > now.getTime()) return problem('invalid_parameter', 'since', 'since must not be in the future.');
  return { since };
}
