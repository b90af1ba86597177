/** The delivery log's parameters: the list's query and recover's body. Pure. */
import {
  findRecoverDeliveriesProblem, PAGINATION, OUTBOUND_DELIVERY_STATUSES, type OutboundDeliveryStatus, type RecoverDeliveriesPayload, type ServiceError,
} from '@voice/contracts';

export interface DeliveryListParams {
  status?: OutboundDeliveryStatus;
  page: number;
  per_page: number;
}

const KNOWN = ['status', 'page', 'per_page'];
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

/** recover's body: `{ since }` as the contracts' payload states it, and not in the future. */
export function parseRecoverBody(body: unknown, now: Date): { since: Date } | { problem: ServiceError } {
  const refused = findRecoverDeliveriesProblem(body);
  if (refused) return { problem: refused };
  const since = new Date((body as RecoverDeliveriesPayload).since);
  // The pattern lets through what is no instant (2025-13-01, 2025-01-01T25:00Z).
  if (Number.isNaN(since.getTime())) {
    return problem('invalid_date_format', 'since', 'since must be an ISO 8601 date or timestamp, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.');
  }
  if (since.getTime() > now.getTime()) return problem('invalid_parameter', 'since', 'since must not be in the future.');
  return { since };
}
