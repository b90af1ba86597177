/**
 * A list page's keys from the rows in memory (pages-in-memory.ts): the sort keys at positions offset…offset+limit
 * of the list's order, read from rows already kept in that order (by start time, or by duration then start time:
 * durationOrder) — a page is then a few reads and two binary searches, whatever the number of matches.
 * Rows with equal keys come in PostgreSQL's id order, which the columns do not hold: the page is named by its keys
 * and by how many rows of its first key come before it. Pure.
 */
import type { PageKey, PageKeys } from '../list-conversations/pages-in-memory.js';

export type PageOrder = 'start_time' | 'duration';

export interface OrderedRows {
  /** The rows the list holds, ascending in its order: by start time, or by duration then start time (ties in any order). */
  ordered: Int32Array;
  /** Each row's start, microseconds since the epoch. */
  start: Float64Array;
  /** Each row's duration in seconds. */
  duration: ArrayLike<number>;
}

/** The total and the keys of the page at `offset` (limit rows at most), in start_time or duration (then start_time) order. */
export function pageKeysOf({ ordered, start, duration }: OrderedRows, sortBy: PageOrder, descending: boolean, offset: number, limit: number): PageKeys {
  const total = ordered.length;
  const end = Math.min(total, offset + limit);
  if (offset >= end) return { total, keys: [], skip: 0 };
  const rowAt = (p: number) => ordered[descending ? total - 1 - p : p];
  // Rows with one key are next to each other in list order; in start-time order the key is the start alone.
  const keys: PageKey[] = [];
  for (let p = offset; p < end; p++) {
    const row = rowAt(p);
    const last = keys[keys.length - 1];
    if (!last || last.start_us !== start[row] || (sortBy === 'duration' && last.duration !== duration[row])) {
      keys.push({ start_us: start[row], duration: duration[row] });
    }
  }
  // The rows listed before the page's first key: those below it ascending, above it descending.
  const first = rowAt(offset);
  const compare = sortBy === 'duration'
    ? (row: number) => duration[row] - duration[first] || start[row] - start[first]
    : (row: number) => start[row] - start[first];
  const before = descending ? total - countWhere(ordered, (row) => compare(row) <= 0) : countWhere(ordered, (row) => compare(row) < 0);
  return { total, keys, skip: offset - before };
}

/**
 * The rows of `byStart` (ascending by start) by duration, then start: counted per duration and placed in one pass
 * (`longest`: at least the longest duration among them), so each duration's rows keep their start-time order.
 */
export function durationOrder(byStart: Int32Array, duration: ArrayLike<number>, longest: number): Int32Array {
  const placeOf = new Float64Array(longest + 2);
  for (let i = 0; i < byStart.length; i++) placeOf[duration[byStart[i]] + 1]++;
  for (let d = 1; d < placeOf.length; d++) placeOf[d] += placeOf[d - 1];
  const ordered = new Int32Array(byStart.length);
  for (let i = 0; i < byStart.length; i++) {
    const row = byStart[i];
    ordered[placeOf[duration[row]]++] = row;
  }
  return ordered;
}

/** How many rows of `ordered` pass `test`, which holds for a prefix of them (a binary search). */
function countWhere(ordered: Int32Array, test: (row: number) => boolean): number {
  let lo = 0;
  let hi = ordered.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (test(ordered[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
