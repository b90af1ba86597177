import { dayEnd, dayStart } from './conversation-filters';

/**
 * The audit log's filters live in the address of the Privacy page (?action=…&created_after=…), under the API's
 * own names; dates are UTC calendar days there and instants for the API.
 */
export const AUDIT_FILTER_KEYS = ['action', 'actor_key_id', 'target_id', 'created_after', 'created_before', 'page'] as const;
export type AuditFilterKey = (typeof AUDIT_FILTER_KEYS)[number];
export type AuditFilters = Partial<Record<AuditFilterKey, string>>;

export function auditFiltersFromSearch(search: string): AuditFilters {
  const params = new URLSearchParams(search);
  const filters: AuditFilters = {};
  for (const key of AUDIT_FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value && !(key === 'page' && value === '1')) filters[key] = value;
  }
  return filters;
}

/** The address's query string for these filters ('' when none); a changed filter starts again at page 1. */
export function searchWithAuditFilter(filters: AuditFilters, key: AuditFilterKey, value: string): string {
  const next: AuditFilters = { ...filters, [key]: value.trim() };
  if (key !== 'page') delete next.page;
  const params = new URLSearchParams();
  for (const k of AUDIT_FILTER_KEYS) if (next[k] && !(k === 'page' && next[k] === '1')) params.set(k, next[k]!);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** GET /v1/audit-events's query: the whole of the first and last day. */
export function auditQuery(filters: AuditFilters): Record<string, string | number> {
  const query: Record<string, string | number> = { per_page: 25 };
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filters[key];
    if (!value) continue;
    query[key] = key === 'created_after' ? dayStart(value) : key === 'created_before' ? dayEnd(value) : key === 'page' ? Number(value) : value;
  }
  return query;
}

const E164 = /^\+[1-9]\d{1,14}$/;

/** A caller number for a data request: what is wrong with it, or undefined when it can be sent. */
export function callerNumberProblem(value: string): string | undefined {
  const number = value.trim();
  if (!number) return 'Enter the caller’s number.';
  return E164.test(number) ? undefined : 'Caller number must be an E.164 phone number such as +14155550100.';
}

export interface DataRequestLike {
  type: string;
  status: string;
  conversations_found: number;
  conversations_done: number;
  download_expires_at: string | null;
}

/** Whether an access request's document can be downloaded now (completed, and its 24 hours not over). */
export function canDownload(request: DataRequestLike, now = Date.now()): boolean {
  return request.type === 'access' && request.status === 'completed' && request.download_expires_at !== null && Date.parse(request.download_expires_at) > now;
}

/** While a request is pending or running its list is read again, to show progress. */
export function anyUnfinished(requests: readonly DataRequestLike[]): boolean {
  return requests.some((r) => r.status === 'pending' || r.status === 'running');
}
