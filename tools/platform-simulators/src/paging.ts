/**
 * Listing page by page, as the platforms' list endpoints offer it: `limit` items at most, after the item whose key
 * is the cursor, in key order (a key order stays put while items come and go). Without `limit` every item is
 * listed, as before pages existed.
 */
export interface Page<T> {
  items: T[];
  /** The cursor of the next page; absent on the last one. */
  next?: string;
}

export const MAX_PAGE_LIMIT = 1_000;

export function pageOf<T>(items: readonly T[], keyOf: (item: T) => string, limit: string | null, after: string | null): Page<T> | { error: string } {
  if (limit === null) return { items: [...items] };
  const size = Number(limit);
  if (!/^\d+$/.test(limit) || size < 1 || size > MAX_PAGE_LIMIT) return { error: `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}` };
  const ordered = [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const rest = after === null ? ordered : ordered.filter((item) => keyOf(item) > after);
  const page = rest.slice(0, size);
  return rest.length > size ? { items: page, next: keyOf(page[page.length - 1]) } : { items: page };
}
