/**
 * GET /v1/conversations/stats query parameters: every filter of the list, parsed by the list's own parser
 * (list-conversations.params.ts), plus `bucket`. page, per_page, sort_by and sort_order select nothing
 * here, so they are refused as unknown parameters rather than silently ignored.
 */
import { STATS_BUCKETS, type RawQuery, type ServiceError, type StatsBucket } from '@voice/contracts';
import { FILTER_PARAMETERS, parseFilterQuery, type ConversationListFilter } from '../list-conversations/list-conversations.params.js';

export const STATS_PARAMETERS = [...FILTER_PARAMETERS, 'bucket'] as const;

export interface StatsFilter {
  filter: ConversationListFilter;
  bucket?: StatsBucket;
}

export function parseStatsQuery(query: RawQuery): { ok: true; value: StatsFilter } | { ok: false; problem: ServiceError } {
  const parsed = parseFilterQuery(query, STATS_PARAMETERS);
  if (!parsed.ok) return parsed;
  const raw = query.bucket;
  if (raw === undefined) return { ok: true, value: { filter: parsed.filter } };
  if (typeof raw !== 'string' || !(STATS_BUCKETS as readonly string[]).includes(raw)) {
    return {
      ok: false,
      problem: { code: 'invalid_parameter', field: 'bucket', message: `bucket must be one of: ${STATS_BUCKETS.join(', ')}.`, valid_values: [...STATS_BUCKETS] },
    };
  }
  return { ok: true, value: { filter: parsed.filter, bucket: raw as StatsBucket } };
}
