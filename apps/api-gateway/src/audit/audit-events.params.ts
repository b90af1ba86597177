/** The query of GET /v1/audit-events, checked and read (pure). */
import { AUDIT_ACTIONS, findUnknownParameter, isCallEventTimestamp, type ServiceError } from '@voice/contracts';
import { parsePageQuery } from '../http/pagination.js';

export const AUDIT_LIST_PARAMETERS = ['page', 'per_page', 'action', 'actor_key_id', 'target_id', 'created_after', 'created_before'] as const;

/** Every id the log names (agt_…, key_…, we_…, a platform, a data request): letters, digits and a few marks. */
const TARGET_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KEY_ID = /^key_[0-9a-f]{24}$/;
const DATE_ONLY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

export interface AuditFilters {
  action?: string;
  actorKeyId?: string;
  targetId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

export type AuditQuery = { filters: AuditFilters; page: number; perPage: number };

/** A date (created_after: from its first instant; created_before: through its last) or an RFC 3339 timestamp with an offset. */
function instant(raw: string, endOfDay: boolean): string | undefined {
  const candidate = DATE_ONLY.test(raw) ? `${raw}T${endOfDay ? '23:59:59.999' : '00:00:00'}Z` : raw;
  return isCallEventTimestamp(candidate) ? candidate : undefined;
}

const invalid = (field: string, message: string, extra: Partial<ServiceError> = {}): { ok: false; problem: ServiceError } =>
  ({ ok: false, problem: { code: 'invalid_parameter', field, message, ...extra } });

export function parseAuditQuery(query: Record<string, unknown>): { ok: true; query: AuditQuery } | { ok: false; problem: ServiceError } {
  const unknown = findUnknownParameter(query, AUDIT_LIST_PARAMETERS);
  if (unknown) return { ok: false, problem: unknown };
  for (const name of AUDIT_LIST_PARAMETERS) {
    if (query[name] !== undefined && typeof query[name] !== 'string') return invalid(name, `${name} must be given once.`);
  }
  const q = query as Record<string, string | undefined>;
  const paging = parsePageQuery(query);
  if ('invalid' in paging) return invalid(paging.invalid, `${paging.invalid} must be a positive integer.`);
  if (q.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(q.action)) {
    return invalid('action', `action must be one of: ${AUDIT_ACTIONS.join(', ')}.`, { valid_values: [...AUDIT_ACTIONS] });
  }
  if (q.actor_key_id !== undefined && !KEY_ID.test(q.actor_key_id)) {
    return invalid('actor_key_id', 'actor_key_id must be an API key id: key_ and 24 hexadecimal digits.');
  }
  if (q.target_id !== undefined && !TARGET_ID.test(q.target_id)) {
    return invalid('target_id', 'target_id must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-".');
  }
  const dates: Partial<Record<'created_after' | 'created_before', string>> = {};
  for (const name of ['created_after', 'created_before'] as const) {
    if (q[name] === undefined) continue;
    const at = instant(q[name]!, name === 'created_before');
    if (!at) {
      return {
        ok: false,
        problem: { code: 'invalid_date_format', field: name, message: `${name} must be an ISO 8601 date or timestamp with a time zone, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.` },
      };
    }
    dates[name] = at;
  }
  if (dates.created_after && dates.created_before && Date.parse(dates.created_after) > Date.parse(dates.created_before)) {
    return invalid('created_before', 'created_before must not be before created_after.');
  }
  return {
    ok: true,
    query: {
      filters: { action: q.action, actorKeyId: q.actor_key_id, targetId: q.target_id, createdAfter: dates.created_after, createdBefore: dates.created_before },
      page: paging.page,
      perPage: paging.perPage,
    },
  };
}
