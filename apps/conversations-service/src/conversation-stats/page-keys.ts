/**
 * A list page's keys from the rows in memory (pages-in-memory.ts): the sort keys at positions offset…offset+limit
 * of the list's order, found from rows already in start-time order, by counting rather than sorting every match.
 * Rows with equal keys come in PostgreSQL's id order, which the columns do not hold: the page is named by its keys
 * and by how many rows of its first key come before it. Pure.
 */
import type { PageKey, PageKeys } from '../list-conversations/pages-in-memory.js';

export interface KeyedRows {
  /** The rows the list holds, by start time ascending (ties in any order). */
  byStart: Int32Array;
  /** Each row's start, microseconds since the epoch. */
  start: Float64Array;
  /** Each row's duration in seconds. */
  duration: ArrayLike<number>;
  /** At least the longest of those durations, when known (saves a pass over the rows to find it). */
  maxDuration?: number;
}

/** The total and the keys of the page at `offset` (limit rows at most), in start_time or duration (then start_time) order. */
export function pageKeysOf(rows: KeyedRows, sortBy: 'start_time' | 'duration', descending: boolean, offset: number, limit: number): PageKeys {
  const total = rows.byStart.length;
  const end = Math.min(total, offset + limit);
  if (offset >= end) return { total, keys: [], skip: 0 };
  const { listed, before } = sortBy === 'start_time' ? byStartTime(rows, descending, offset, end) : byDuration(rows, descending, offset, end);
  const keyOf = (row: number): PageKey => ({ start_us: rows.start[row], duration: rows.duration[row] });
  // Rows with one key are next to each other in list order; in start-time order the key is the start alone.
  const keys: PageKey[] = [];
  for (const row of listed) {
    const key = keyOf(row);
    const last = keys[keys.length - 1];
    if (!last || last.start_us !== key.start_us || (sortBy === 'duration' && last.duration !== key.duration)) keys.push(key);
  }
  return { total, keys, skip: offset - before };
}

/** The page's rows in list order, and how many rows have a key strictly before its first row's. */
interface Located {
  listed: number[];
  before: number;
}

function byStartTime({ byStart, start }: KeyedRows, descending: boolean, offset: number, end: number): Located {
  const total = byStart.length;
  const listed: number[] = [];
  for (let p = offset; p < end; p++) listed.push(byStart[descending ? total - 1 - p : p]);
  const first = start[listed[0]];
  return { listed, before: descending ? total - startsUpTo(byStart, start, first, true) : startsUpTo(byStart, start, first, false) };
}

/**
 * Duration order: the rows per duration are counted, which gives the durations of the page's first and last rows;
 * only the rows of those durations (and any between) are then put in list order.
 */
function byDuration({ byStart, start, duration, maxDuration }: KeyedRows, descending: boolean, offset: number, end: number): Located {
  const total = byStart.length;
  let max = maxDuration ?? 0;
  if (maxDuration === undefined) for (let i = 0; i < total; i++) max = Math.max(max, duration[byStart[i]]);
  const perDuration = new Float64Array(max + 1);
  for (let i = 0; i < total; i++) perDuration[duration[byStart[i]]]++;
  let seen = 0;
  let firstDuration = -1;
  let lastDuration = -1;
  let beforeFirst = 0;
  for (let k = 0; k <= max && lastDuration < 0; k++) {
    const d = descending ? max - k : k;
    if (firstDuration < 0 && seen + perDuration[d] > offset) [firstDuration, beforeFirst] = [d, seen];
    seen += perDuration[d];
    if (seen >= end) lastDuration = d;
  }
  const [low, high] = [Math.min(firstDuration, lastDuration), Math.max(firstDuration, lastDuration)];
  const inOrder: number[] = [];
  for (let i = 0; i < total; i++) {
    const row = byStart[descending ? total - 1 - i : i];
    if (duration[row] >= low && duration[row] <= high) inOrder.push(row);
  }
  // Stable, so each duration's rows keep their start-time order: inOrder[i] is at position beforeFirst + i.
  inOrder.sort((a, b) => (descending ? duration[b] - duration[a] : duration[a] - duration[b]));
  const listed = inOrder.slice(offset - beforeFirst, end - beforeFirst);
  const firstRow = listed[0];
  const tiedAhead = inOrder.findIndex((row) => duration[row] === duration[firstRow] && start[row] === start[firstRow]);
  return { listed, before: beforeFirst + tiedAhead };
}

/** How many rows (by start ascending) start before `value`, or at or before it with `orAt`. */
function startsUpTo(byStart: Int32Array, start: Float64Array, value: number, orAt: boolean): number {
  let lo = 0;
  let hi = byStart.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const v = start[byStart[mid]];
    if (v < value || (orAt && v === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
