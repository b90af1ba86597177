/**
 * GET /v1/conversations query parameters (every parameter of the public list interface),
 * parsed from the raw query strings into a typed filter, or the first problem
 * with its field (and valid_values for enumerated parameters).
 */
import {
  BOOLEAN_VALUES, CALL_EVENT_PATTERNS, charCount, CONVERSATION_FILTER_PARAMETERS, LIST_FILTER_LIMITS, CONVERSATION_SORT_FIELDS, CONVERSATION_STATUSES, PAGINATION, SENTIMENTS, SORT_ORDERS,
  findUnknownParameter, timestampEpochNanos, type ConversationStatus, type RawQuery, type Sentiment, type ServiceError,
} from '@voice/contracts';

export type SortField = (typeof CONVERSATION_SORT_FIELDS)[number];
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface ConversationListFilter {
  page: number;
  per_page: number;
  agent_id?: string;
  status?: ConversationStatus;
  sentiment?: Sentiment;
  outcome?: string;
  caller?: string;
  min_duration?: number;
  max_duration?: number;
  /** USD, as the decimal written (compared exactly by PostgreSQL as numeric, never through a float). */
  min_cost?: string;
  max_cost?: string;
  /** UTC instants, `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (so string order is time order). */
  start_date?: string;
  end_date?: string;
  has_recording?: boolean;
  has_transcript?: boolean;
  /** Lower-cased; matched as a literal substring. */
  search?: string;
  /** Lower-cased; matched exactly against each topic. */
  topic?: string;
  sort_by: SortField;
  sort_order: SortOrder;
}

/** The filters (what selects conversations, CONVERSATION_FILTERS), shared by the list and GET /v1/conversations/stats. */
export const FILTER_PARAMETERS = CONVERSATION_FILTER_PARAMETERS satisfies ReadonlyArray<keyof ConversationListFilter>;
export const LIST_PARAMETERS = ['page', 'per_page', ...FILTER_PARAMETERS, 'sort_by', 'sort_order'] as const;

/** A cost filter: a plain non-negative decimal (no sign, exponent or thousands separator), at most this many characters. */
const COST_PATTERN = /^[0-9]+(\.[0-9]+)?$/;
const MAX_COST_LENGTH = 32;

/** Any page past the end answers an empty page; beyond this the number is not exact in JavaScript. */
const MAX_PAGE = Number.MAX_SAFE_INTEGER;
const MAX_TEXT = LIST_FILTER_LIMITS.text;

export type ParseResult = { ok: true; filter: ConversationListFilter } | { ok: false; problem: ServiceError };

class Problem extends Error {
  constructor(readonly detail: ServiceError) {
    super(detail.message);
  }
}
const invalid = (field: string, message: string, validValues?: readonly string[]): never => {
  throw new Problem({ code: 'invalid_parameter', field, message, ...(validValues ? { valid_values: [...validValues] } : {}) });
};

export function parseListQuery(query: RawQuery): ParseResult {
  return parseFilterQuery(query, LIST_PARAMETERS);
}

/**
 * The same parsing for another endpoint taking the list's filters: `known` are the parameters it accepts
 * (anything else is refused as unknown); a list parameter it does not accept keeps its default.
 */
export function parseFilterQuery(query: RawQuery, known: readonly string[]): ParseResult {
  try {
    return { ok: true, filter: parse(query, known) };
  } catch (err) {
    if (err instanceof Problem) return { ok: false, problem: err.detail };
    throw err;
  }
}

function parse(query: RawQuery, known: readonly string[]): ConversationListFilter {
  const unknownParameter = findUnknownParameter(query, known);
  if (unknownParameter) throw new Problem(unknownParameter);
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return invalid(name, `${name} must be given at most once.`);
    // Nested query syntax (`status[x]=...`) or anything else that is not one plain string.
    if (typeof value !== 'string') return invalid(name, `${name} must be a single value.`);
    return value;
  };
  const nonEmpty = (name: string): string | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (trimmed === '') invalid(name, `${name} must not be empty.`);
    if (charCount(trimmed) > MAX_TEXT) invalid(name, `${name} must be at most ${MAX_TEXT} characters long.`);
    return trimmed;
  };
  const oneOf = <T extends string>(name: string, values: readonly T[]): T | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value)) invalid(name, `${name} must be one of: ${values.join(', ')}.`, values);
    return value as T;
  };
  const integer = (name: string, min: number, max: number, what: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const n = /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) invalid(name, `${name} must be ${what}.`);
    return n;
  };
  const amount = (name: string): string | undefined => {
    const value = text(name)?.trim();
    if (value === undefined) return undefined;
    if (!COST_PATTERN.test(value) || value.length > MAX_COST_LENGTH) {
      invalid(name, `${name} must be a non-negative amount in USD written with digits and at most one decimal point (at most ${MAX_COST_LENGTH} characters), e.g. 0.25.`);
    }
    return value;
  };
  const bool = (name: string): boolean | undefined => {
    const value = oneOf(name, BOOLEAN_VALUES);
    return value === undefined ? undefined : value === 'true';
  };
  const date = (name: string, endOfDay: boolean): string | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const instant = parseIsoDate(value, endOfDay);
    if (!instant) {
      throw new Problem({
        code: 'invalid_date_format',
        field: name,
        message: `${name} must be an ISO 8601 date or timestamp in the years 0001 to 9999, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.`,
      });
    }
    return instant;
  };

  const page = integer('page', 1, MAX_PAGE, `a positive integer (at most ${MAX_PAGE})`) ?? 1;
  const perPage = pageSize(text('per_page'));
  const filter: ConversationListFilter = {
    page,
    per_page: perPage,
    agent_id: nonEmpty('agent_id'),
    status: oneOf('status', CONVERSATION_STATUSES),
    sentiment: oneOf('sentiment', SENTIMENTS),
    outcome: nonEmpty('outcome')?.toLowerCase(),
    caller: caller(text('caller')),
    min_duration: integer('min_duration', 0, 2_147_483_647, 'a non-negative integer (seconds)'),
    max_duration: integer('max_duration', 0, 2_147_483_647, 'a non-negative integer (seconds)'),
    min_cost: amount('min_cost'),
    max_cost: amount('max_cost'),
    start_date: date('start_date', false),
    end_date: date('end_date', true),
    has_recording: bool('has_recording'),
    has_transcript: bool('has_transcript'),
    search: searchText(text('search')),
    topic: nonEmpty('topic')?.toLowerCase(),
    sort_by: oneOf('sort_by', CONVERSATION_SORT_FIELDS) ?? 'start_time',
    sort_order: oneOf('sort_order', SORT_ORDERS) ?? 'desc',
  };
  if (filter.min_duration !== undefined && filter.max_duration !== undefined && filter.min_duration > filter.max_duration) {
    invalid('min_duration', 'min_duration must not be greater than max_duration.');
  }
  if (filter.min_cost !== undefined && filter.max_cost !== undefined && compareDecimals(filter.min_cost, filter.max_cost) > 0) {
    invalid('min_cost', 'min_cost must not be greater than max_cost.');
  }
  if (filter.start_date && filter.end_date && filter.start_date > filter.end_date) {
    invalid('start_date', 'start_date must not be after end_date.');
  }
  return filter;
}

/** Compare two plain non-negative decimals (COST_PATTERN) exactly: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): number {
  const split = (x: string) => {
    const [whole, fraction = ''] = x.split('.');
    return { whole: whole.replace(/^0+/, ''), fraction: fraction.replace(/0+$/, '') };
  };
  const x = split(a);
  const y = split(b);
  if (x.whole.length !== y.whole.length) return x.whole.length < y.whole.length ? -1 : 1;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const left = x.whole + x.fraction.padEnd(width, '0');
  const right = y.whole + y.fraction.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

/** A positive integer; any larger than the maximum (however large) is capped, not refused. */
function pageSize(value: string | undefined): number {
  if (value === undefined) return PAGINATION.defaultPerPage;
  const digits = value.trim();
  if (!/^[0-9]+$/.test(digits) || /^0+$/.test(digits)) invalid('per_page', 'per_page must be a positive integer.');
  return Math.min(Number(digits), PAGINATION.maxPerPage);
}

function caller(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // An unencoded "+" in a query string arrives as a space: "+14155550123" → " 14155550123".
  const normalized = /^ [0-9]/.test(value) ? `+${value.slice(1)}` : value.trim();
  if (!CALL_EVENT_PATTERNS.e164.test(normalized)) invalid('caller', 'caller must be an E.164 phone number, e.g. +14155550123.');
  return normalized;
}

function searchText(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (charCount(value) > MAX_TEXT) invalid('search', `search must be at most ${MAX_TEXT} characters long.`);
  return value.toLowerCase();
}

const DATE_ONLY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:?[0-9]{2})?$/;

/** The instants PostgreSQL and RFC 3339 (four-digit years) can both carry: 0001-01-01T00:00:00Z to the end of 9999. */
const FIRST_INSTANT = timestampEpochNanos('0001-01-01T00:00:00Z');
const LAST_INSTANT = timestampEpochNanos('9999-12-31T23:59:59.999999999Z');
const NANOS_PER_MS = 1_000_000n;
const NANOS_PER_S = 1_000_000_000n;

const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number) => (m === 2 ? (isLeapYear(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

/** A UTC instant as `YYYY-MM-DDTHH:MM:SS.fffffffffZ`: every digit kept, so string order is time order. */
function formatInstant(nanos: bigint): string {
  const subSecond = ((nanos % NANOS_PER_S) + NANOS_PER_S) % NANOS_PER_S;
  const wholeMs = (nanos - subSecond) / NANOS_PER_MS;
  return `${new Date(Number(wholeMs)).toISOString().slice(0, 19)}.${String(subSecond).padStart(9, '0')}Z`;
}

/**
 * An ISO 8601 date (`2025-01-31`) or date-time, as a UTC instant with nine
 * fractional digits (PostgreSQL rounds it to microseconds, as it rounded the
 * stored start times). A date alone means the start of that day for
 * start_date and its last microsecond for end_date, so `end_date=2025-01-31`
 * includes calls that day. A time without an offset is UTC. Years are read as
 * written (0099 is the year 99); an instant outside years 0001–9999 (UTC) is
 * refused, as PostgreSQL has no year 0 and RFC 3339 no five-digit years.
 */
export function parseIsoDate(raw: string, endOfDay = false): string | undefined {
  // An unencoded "+" of an offset arrives as a space.
  const value = raw.trim().replace(/ ([0-9]{2}:?[0-9]{2})$/, '+$1');
  const d = DATE_ONLY.exec(value);
  const t = d ? undefined : DATE_TIME.exec(value);
  const m = d ?? t;
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  let local: string;
  if (d) {
    local = `${m[1]}-${m[2]}-${m[3]}T${endOfDay ? '23:59:59.999999' : '00:00:00'}Z`;
  } else {
    const [hour, minute, second] = [Number(t![4]), Number(t![5]), Number(t![6] ?? 0)];
    if (hour > 23 || minute > 59 || second > 59) return undefined;
    let offset = t![8] ?? 'Z';
    if (/^[+-][0-9]{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
    if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return undefined;
    const fraction = t![7] ? `.${t![7]}` : '';
    local = `${m[1]}-${m[2]}-${m[3]}T${t![4]}:${t![5]}:${String(second).padStart(2, '0')}${fraction}${offset}`;
  }
  const nanos = timestampEpochNanos(local);
  if (nanos < FIRST_INSTANT || nanos > LAST_INSTANT) return undefined;
  return formatInstant(nanos);
}
