import { AGENT_LIST_LIMITS, AGENT_STATUSES, charCount, findUnknownParameter, PAGINATION, VOICE_PLATFORMS, type RawQuery, type ServiceError } from '@voice/contracts';

export interface ListAgentsParams {
  status?: (typeof AGENT_STATUSES)[number];
  voice_platform?: (typeof VOICE_PLATFORMS)[number];
  /** Case-insensitive substring of the name, matched literally (`%` and `_` are plain characters). */
  search?: string;
  page: number;
  per_page: number;
}

const KNOWN = ['status', 'voice_platform', 'search', 'page', 'per_page'] as const;
const MAX_SEARCH_LENGTH = AGENT_LIST_LIMITS.search;

/**
 * Turn the raw query string into list parameters, or the first problem.
 * Unknown parameters are refused (a typo such as `stauts` would otherwise
 * silently return everything); an empty value means "not given".
 */
export function parseListAgentsQuery(query: RawQuery = {}): { params: ListAgentsParams } | { problem: ServiceError } {
  const unknownParameter = findUnknownParameter(query, KNOWN);
  if (unknownParameter) return { problem: unknownParameter };
  for (const [name, value] of Object.entries(query)) {
    // Repeated (`?a=1&a=2`) or bracketed (`?a[b]=1`) parameters arrive as arrays or objects.
    if (value !== undefined && typeof value !== 'string') {
      return { problem: { code: 'invalid_parameter', field: name, message: `${name} must be given at most once, as a plain value.` } };
    }
  }
  const given = (name: (typeof KNOWN)[number]) => {
    const value = query[name] as string | undefined;
    return value === undefined || value === '' ? undefined : value;
  };

  const params: ListAgentsParams = { page: 1, per_page: PAGINATION.defaultPerPage };
  const status = given('status');
  if (status !== undefined) {
    if (!(AGENT_STATUSES as readonly string[]).includes(status)) return { problem: enumProblem('status', AGENT_STATUSES) };
    params.status = status as ListAgentsParams['status'];
  }
  const platform = given('voice_platform');
  if (platform !== undefined) {
    if (!(VOICE_PLATFORMS as readonly string[]).includes(platform)) return { problem: enumProblem('voice_platform', VOICE_PLATFORMS) };
    params.voice_platform = platform as ListAgentsParams['voice_platform'];
  }
  const search = given('search');
  if (search !== undefined) {
    if (charCount(search) > MAX_SEARCH_LENGTH) {
      return { problem: { code: 'invalid_parameter', field: 'search', message: `search must be at most ${MAX_SEARCH_LENGTH} characters.` } };
    }
    params.search = search;
  }
  const page = given('page');
  if (page !== undefined) {
    const n = positiveInteger(page);
    if (n === undefined) return { problem: { code: 'invalid_parameter', field: 'page', message: 'page must be an integer of at least 1.' } };
    params.page = n;
  }
  const perPage = given('per_page');
  if (perPage !== undefined) {
    const n = positiveInteger(perPage);
    if (n === undefined) {
      return { problem: { code: 'invalid_parameter', field: 'per_page', message: `per_page must be an integer from 1 to ${PAGINATION.maxPerPage}.` } };
    }
    params.per_page = Math.min(n, PAGINATION.maxPerPage);
  }
  return { params };
}

function positiveInteger(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 ? n : undefined;
}

function enumProblem(field: string, values: readonly string[]): ServiceError {
  return { code: 'invalid_parameter', field, message: `${field} must be one of ${values.join(', ')}.`, valid_values: [...values] };
}
