/**
 * The conversation list's view state lives in the address bar (so a view can be shared and reloaded): one
 * query parameter per filter of GET /v1/conversations, under the API's own names. Dates are calendar days
 * (YYYY-MM-DD, UTC) in the address and become date-times for the API.
 */
export const FILTER_KEYS = [
  'start_date', 'end_date', 'agent_id', 'status', 'sentiment', 'outcome', 'caller', 'min_duration', 'max_duration',
  'min_cost', 'max_cost', 'has_recording', 'has_transcript', 'topic', 'search', 'sort_by', 'sort_order', 'page', 'per_page',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type ConversationFilters = Partial<Record<FilterKey, string>>;

/** What the API does when a parameter is absent: not written to the address, so default views have short links. */
const DEFAULTS: ConversationFilters = { sort_by: 'start_time', sort_order: 'desc', page: '1', per_page: '25' };

export function filtersFromSearch(search: string): ConversationFilters {
  const params = new URLSearchParams(search);
  const filters: ConversationFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value && value !== DEFAULTS[key]) filters[key] = value;
  }
  return filters;
}

/** The address's query string (with its "?", or '' for the default view), in a stable order. */
export function searchFromFilters(filters: ConversationFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value && value !== DEFAULTS[key]) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A changed filter starts again at page 1 (page 7 of another result set means nothing). */
export function withFilter(filters: ConversationFilters, key: FilterKey, value: string): ConversationFilters {
  const next: ConversationFilters = { ...filters, [key]: value };
  if (!value.trim()) delete next[key];
  if (key !== 'page') delete next.page;
  return next;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The first and last instants of a calendar day, for start_date and end_date. */
export function dayStart(day: string): string {
  return DAY.test(day) ? `${day}T00:00:00.000Z` : day;
}
export function dayEnd(day: string): string {
  return DAY.test(day) ? `${day}T23:59:59.999Z` : day;
}

/** The query for GET /v1/conversations (and, without paging and sorting, for the stats). */
export function apiQuery(filters: ConversationFilters): Record<string, string> {
  const query: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (!value) continue;
    query[key] = key === 'start_date' ? dayStart(value) : key === 'end_date' ? dayEnd(value) : value;
  }
  return query;
}
