/**
 * A remembered search's matches with the list's other filters applied (a status, an agent, a date range…), kept
 * in the list's orders — by start time, and by duration then start time once asked — so that a page of that list
 * is read from them directly: the total is their length and the page a few reads (page-keys.ts), where filtering
 * and counting every match again took time in proportion to the matches (a million at ten million conversations).
 * Kept exact as rows are put: every row put that the search matched before or matches now is noted, and at the
 * next use taken out of the orders and merged back in where it now belongs if it still passes (one pass), or, past
 * an eighth of the view, the view is built again from the search's matches. Pure: no database.
 */
import { durationOrder, type PageOrder } from './page-keys.js';

/** What a view is built and mended from: the columns and the search, as they are now. */
export interface ViewSource {
  /** The search's matches, by start time. */
  matches: Int32Array;
  /** Those of `rows` that pass the view's filters, in their order, as a new array. */
  kept(rows: Int32Array): Int32Array;
  /** Whether the search matches the row now. */
  member(row: number): boolean;
  /** How many rows the columns hold. */
  rows: number;
  start: Float64Array;
  duration: ArrayLike<number>;
  /** At least the longest duration of any row. */
  longest: number;
}

export class FilteredView {
  private byStart: Int32Array | undefined;
  private byDuration: Int32Array | undefined;
  /** Rows put since the orders were built or mended (the search matched them before, or matches them now). */
  private changed: number[] = [];

  get arrays(): Int32Array[] {
    return [this.byStart, this.byDuration].filter((a) => a !== undefined);
  }

  /** After a row the search matched, or now matches, was put. */
  noteChanged(row: number): void {
    if (!this.byStart) return;
    this.changed.push(row);
    if (this.changed.length > (this.byStart.length >> 3) + 1024) {
      this.byStart = this.byDuration = undefined;
      this.changed = [];
    }
  }

  /** The rows in the list's ascending order for `sortBy`, built or mended first if need be. */
  ordered(sortBy: PageOrder, source: ViewSource): Int32Array {
    const { start, duration } = source;
    if (!this.byStart) {
      this.byStart = source.kept(source.matches);
      this.byDuration = undefined;
    } else if (this.changed.length > 0) {
      const isChanged = new Uint8Array(source.rows);
      for (const row of this.changed) isChanged[row] = 1;
      const now = source.kept(Int32Array.from(new Set(this.changed)).filter((row) => source.member(row)));
      const byStartKey = (a: number, b: number) => start[a] - start[b];
      this.byStart = merged(this.byStart, isChanged, now.slice().sort(byStartKey), byStartKey);
      if (this.byDuration) {
        const byDurationKey = (a: number, b: number) => duration[a] - duration[b] || start[a] - start[b];
        this.byDuration = merged(this.byDuration, isChanged, now.sort(byDurationKey), byDurationKey);
      }
    }
    this.changed = [];
    if (sortBy === 'start_time') return this.byStart;
    this.byDuration ??= durationOrder(this.byStart, duration, source.longest);
    return this.byDuration;
  }
}

/**
 * `ordered` (ascending by `compare`) without the rows marked in `isChanged`, and `added` (ascending by `compare`,
 * each once) merged in where they belong.
 */
export function merged(ordered: Int32Array, isChanged: Uint8Array, added: ArrayLike<number>, compare: (a: number, b: number) => number): Int32Array {
  const out = new Int32Array(ordered.length + added.length);
  let n = 0;
  let a = 0;
  for (let i = 0; i < ordered.length; i++) {
    const row = ordered[i];
    if (isChanged[row] === 1) continue;
    while (a < added.length && compare(added[a], row) < 0) out[n++] = added[a++];
    out[n++] = row;
  }
  while (a < added.length) out[n++] = added[a++];
  return n === out.length ? out : out.slice(0, n);
}
