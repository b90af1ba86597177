/** The query of GET /v1/webhook-deliveries, checked and read (pure). */
import {
  CONVERSATION_ID_PATTERN, findUnknownParameter, isCallEventTimestamp, VOICE_PLATFORMS, WEBHOOK_DELIVERY_OUTCOMES, type ServiceError,
} from '@voice/contracts';
import { parsePageQuery } from '../http/pagination.js';
import type { DeliveryFilters } from './webhook-deliveries.store.js';

export const DELIVERY_LIST_PARAMETERS = ['page', 'per_page', 'platform', 'outcome', 'conversation_id', 'start_date', 'end_date'] as const;

const DATE_ONLY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** A date (the whole day: its first instant for start_date, its last for end_date) or an RFC 3339 timestamp with an offset. */
export function deliveryDate(raw: string, endOfDay: boolean): string | undefined {
  if (DATE_ONLY.test(raw)) {
    const instant = `${raw}T${endOfDay ? '23:59:59.999' : '00:00:00'}Z`;
    return isCallEventTimestamp(instant) ? instant : undefined;
  }
  return isCallEventTimestamp(raw) ? raw : undefined;
}

export type DeliveryQuery = { filters: DeliveryFilters; page: number; perPage: number };

export function parseDeliveryQuery(query: Record<string, unknown>): { ok: true; query: DeliveryQuery } | { ok: false; problem: ServiceError } {
  const unknown = findUnknownParameter(query, DELIVERY_LIST_PARAMETERS);
  if (unknown) return { ok: false, problem: unknown };
  for (const name of DELIVERY_LIST_PARAMETERS) {
    if (query[name] !== undefined && typeof query[name] !== 'string') {
      return { ok: false, problem: { code: 'invalid_parameter', field: name, message: `${name} must be given once.` } };
    }
  }
  const q = query as Record<string, string | undefined>;
  const paging = parsePageQuery(query);
  if ('invalid' in paging) return { ok: false, problem: { code: 'invalid_parameter', field: paging.invalid, message: `${paging.invalid} must be a positive integer.` } };
  const oneOf = (name: 'platform' | 'outcome', values: readonly string[]): ServiceError | undefined =>
    q[name] !== undefined && !values.includes(q[name]!)
      ? { code: 'invalid_parameter', field: name, message: `${name} must be one of: ${values.join(', ')}.`, valid_values: [...values] }
      : undefined;
  const enumProblem = oneOf('platform', VOICE_PLATFORMS) ?? oneOf('outcome', WEBHOOK_DELIVERY_OUTCOMES);
  if (enumProblem) return { ok: false, problem: enumProblem };
  if (q.conversation_id !== undefined && !CONVERSATION_ID_PATTERN.test(q.conversation_id)) {
    return { ok: false, problem: { code: 'invalid_parameter', field: 'conversation_id', message: 'conversation_id must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-".' } };
  }
  const dates: Partial<Record<'start_date' | 'end_date', string>> = {};
  for (const name of ['start_date', 'end_date'] as const) {
    if (q[name] === undefined) continue;
    const instant = deliveryDate(q[name]!, name === 'end_date');
    if (!instant) {
      return {
        ok: false,
        problem: { code: 'invalid_date_format', field: name, message: `${name} must be an ISO 8601 date or timestamp with a time zone, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.` },
      };
    }
    dates[name] = instant;
  }
  if (dates.start_date && dates.end_date && Date.parse(dates.start_date) > Date.parse(dates.end_date)) {
    return { ok: false, problem: { code: 'invalid_parameter', field: 'end_date', message: 'end_date must not be before start_date.' } };
  }
  return {
    ok: true,
    query: {
      filters: { platform: q.platform, outcome: q.outcome, conversationId: q.conversation_id, receivedFrom: dates.start_date, receivedTo: dates.end_date },
      page: paging.page,
      perPage: paging.perPage,
    },
  };
}
