/** GET /v1/events' query: the filters, each checked, and the page. Pure. */
import { OUTBOUND_EVENT_FILTERS, OUTBOUND_EVENT_TYPES, PAGINATION, type OutboundEventType, type ServiceError } from '@voice/contracts';

export interface EventListParams {
  type?: OutboundEventType;
  conversation_id?: string;
  agent_id?: string;
  created_after?: Date;
  created_before?: Date;
  page: number;
  per_page: number;
}

const KNOWN: readonly string[] = [...OUTBOUND_EVENT_FILTERS, 'page', 'per_page'];
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const MAX_ID = 128;
/** Ids in the house style; anything else is simply not found. */
export const EVENT_ID = /^evt_[0-9a-f]{24}$/;

const problem = (code: ServiceError['code'], field: string, message: string, extra: Partial<ServiceError> = {}) => ({ problem: { code, field, message, ...extra } });

export function parseEventListQuery(query: Record<string, unknown> = {}): EventListParams | { problem: ServiceError } {
  const params: EventListParams = { page: 1, per_page: PAGINATION.defaultPerPage };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (!KNOWN.includes(name)) return problem('invalid_parameter', name, `${name} is not a parameter of this list (parameters: ${KNOWN.join(', ')}).`);
    if (typeof value !== 'string') return problem('invalid_parameter', name, `${name} must be given at most once, as a plain value.`);
    switch (name) {
      case 'type':
        if (!(OUTBOUND_EVENT_TYPES as readonly string[]).includes(value)) {
          return problem('invalid_parameter', 'type', `type must be one of ${OUTBOUND_EVENT_TYPES.join(', ')}.`, { valid_values: [...OUTBOUND_EVENT_TYPES] });
        }
        params.type = value as OutboundEventType;
        break;
      case 'conversation_id':
      case 'agent_id':
        if (value.length > MAX_ID) return problem('invalid_parameter', name, `${name} must be at most ${MAX_ID} characters.`);
        params[name] = value;
        break;
      case 'created_after':
      case 'created_before': {
        const at = ISO_INSTANT.test(value) ? new Date(value) : undefined;
        if (!at || Number.isNaN(at.getTime())) return problem('invalid_date_format', name, `${name} must be an ISO 8601 date or timestamp, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.`);
        params[name] = at;
        break;
      }
      default: {
        const n = /^\d{1,15}$/.test(value) ? Number(value) : 0;
        if (n < 1) return problem('invalid_parameter', name, name === 'page' ? 'page must be an integer of at least 1.' : `per_page must be an integer from 1 to ${PAGINATION.maxPerPage}.`);
        if (name === 'page') params.page = n;
        else params.per_page = Math.min(n, PAGINATION.maxPerPage);
      }
    }
  }
  return params;
}
