import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, NullableString, PAGINATION } from '@voice/contracts';

/** A list's page figures; the OpenAPI components are these schemas. */
export const PageMetaSchema = ClosedObject({
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: PAGINATION.maxPerPage }),
  total_pages: Type.Integer({ minimum: 0 }),
});
export type PageMeta = Static<typeof PageMetaSchema>;

export const PageLinksSchema = ClosedObject(
  {
    first: Type.String({ format: 'uri' }),
    prev: NullableString({ format: 'uri' }),
    next: NullableString({ format: 'uri' }),
    last: Type.String({ format: 'uri' }),
  },
  { description: 'Absolute URLs keeping every query parameter; prev is null on page 1, next on the last page.' },
);
export type PageLinks = Static<typeof PageLinksSchema>;

export function pageMeta(total: number, page: number, perPage: number): PageMeta {
  return { total, page, per_page: perPage, total_pages: totalPages(total, perPage) };
}

function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

export interface LinksOriginInput {
  /** PUBLIC_URL when the operator configured it: then the request's Host is never used. */
  configuredPublicUrl?: string;
  /** The gateway's own listening address, used when the Host header cannot be trusted to be a host at all. */
  ownUrl: string;
  protocol: string;
  host: string | undefined;
}

// A registered name, IPv4 or bracketed IPv6 literal, with an optional port: nothing that could
// smuggle a path, query, fragment or userinfo into a URL built from it.
const HOST_AND_PORT = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export function isHostAndPort(host: string): boolean {
  return host.length <= 260 && HOST_AND_PORT.test(host);
}

/**
 * Where absolute page links point. The Host header is the client's to choose, so a
 * configured PUBLIC_URL wins; without one the Host is kept (it is what the client
 * reached, e.g. through a proxy) only when it is a plain host[:port].
 */
export function linksOrigin(input: LinksOriginInput): string {
  if (input.configuredPublicUrl) return input.configuredPublicUrl.replace(/\/+$/, '');
  if (input.host !== undefined && isHostAndPort(input.host)) return `${input.protocol}://${input.host}`;
  return input.ownUrl.replace(/\/+$/, '');
}

export interface PageLinksInput {
  /** Absolute URL of the list without query, e.g. `http://api.example/v1/conversations`. */
  baseUrl: string;
  /** The request's raw query string (with or without the leading `?`). */
  search: string;
  page: number;
  /** The page size in effect (after capping), written into every link. */
  perPage: number;
  total: number;
}

/**
 * Links keep every filter the client gave so following them never changes the
 * result set. `last` is page 1 when there are no results (an empty list still
 * has one, empty, page). Past the end, `prev` points at the last real page so a
 * client that overshot can step back onto data, and `next` is null.
 */
export function pageLinks(input: PageLinksInput): PageLinks {
  const lastPage = Math.max(totalPages(input.total, input.perPage), 1);
  const link = (page: number) => {
    const params = new URLSearchParams(input.search);
    params.delete('page');
    params.set('per_page', String(input.perPage));
    params.append('page', String(page));
    return `${input.baseUrl}?${params.toString()}`;
  };
  let prev: string | null = null;
  if (input.page > lastPage) prev = link(lastPage);
  else if (input.page > 1) prev = link(input.page - 1);
  return {
    first: link(1),
    prev,
    next: input.page < lastPage ? link(input.page + 1) : null,
    last: link(lastPage),
  };
}

export interface PageQuery {
  page: number;
  perPage: number;
}

/** The only parameters of a list that has no filters. */
export const PAGE_PARAMETERS = ['page', 'per_page'] as const;

const POSITIVE_INTEGER = /^[1-9][0-9]{0,8}$/;

/**
 * page/per_page for lists the gateway serves itself (the services apply the
 * same rules to theirs): positive integers, per_page capped rather than refused.
 * Returns the problem's field name when a value is not a positive integer.
 */
export function parsePageQuery(query: Record<string, unknown>, defaults = { perPage: 25, maxPerPage: 100 }): PageQuery | { invalid: 'page' | 'per_page' } {
  const read = (name: 'page' | 'per_page', fallback: number): number | undefined => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    return typeof raw === 'string' && POSITIVE_INTEGER.test(raw) ? Number(raw) : undefined;
  };
  const page = read('page', 1);
  if (page === undefined) return { invalid: 'page' };
  const perPage = read('per_page', defaults.perPage);
  if (perPage === undefined) return { invalid: 'per_page' };
  return { page, perPage: Math.min(perPage, defaults.maxPerPage) };
}
