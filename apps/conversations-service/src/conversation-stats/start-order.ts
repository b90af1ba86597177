/**
 * Every row of an account's columns in start-time order, built when a list first needs it and then kept: rows put
 * since (new, or with a new start) are merged in when it is next asked for, one pass, rather than sorted again.
 * The columns are loaded in start-time order, so building it is mostly a check that they still are. A list with a
 * start-time range then reads only the range's rows (two binary searches) instead of passing over every row.
 * Pure: no database.
 */
import { merged } from './remembered-searches.js';
import { everyRow, type RowChecks } from '../conversation-filters/conversation-filters.js';

export class StartOrder {
  private byStart: Int32Array | undefined;
  /** Rows put with a new start, or added, since byStart was built. */
  private changed: number[] = [];

  /** What it holds: four bytes a row once built. */
  get bytes(): number {
    return this.byStart?.byteLength ?? 0;
  }

  /** After a row was put: `moved` when it is new or its start changed. */
  update(row: number, moved: boolean): void {
    if (this.byStart && moved) this.changed.push(row);
  }

  /** Every row (of `rows`) by start ascending, ties in any order (`start`: each row's). */
  rows(start: Float64Array, rows: number): Int32Array {
    if (!this.byStart || this.changed.length > (this.byStart.length >> 3) + 1024) {
      this.byStart = everyRow(rows);
      if (!inOrder(this.byStart, start)) this.byStart.sort((a, b) => start[a] - start[b]);
    } else if (this.changed.length > 0) {
      this.byStart = merged(this.byStart, this.changed, () => true, start, rows);
    }
    this.changed = [];
    return this.byStart;
  }
}

/**
 * The rows of `ordered` (by start ascending) within the checks' start-time range, found by two binary searches,
 * and the checks left to pass over them (all of them when there is no range).
 */
export function withinStartCheck(ordered: Int32Array, start: Float64Array, checks: RowChecks): { rows: Int32Array; checks: RowChecks } {
  const k = checks.values.indexOf(start);
  if (k < 0) return { rows: ordered, checks };
  const others = (_: unknown, i: number) => i !== k;
  return {
    rows: startingWithin(ordered, start, checks.min[k], checks.max[k]),
    checks: { values: checks.values.filter(others), min: checks.min.filter(others), max: checks.max.filter(others), includes: checks.includes },
  };
}

/** The rows of `byStart` (by start ascending) whose start is within from…to (microseconds, inclusive). */
export function startingWithin(byStart: Int32Array, start: Float64Array, from: number, to: number): Int32Array {
  return byStart.subarray(firstAtOrAfter(byStart, start, from), firstAtOrAfter(byStart, start, to, true));
}

/** The first place in `byStart` whose start is at or after `value` (after it, with `after`). */
export function firstAtOrAfter(byStart: Int32Array, start: Float64Array, value: number, after = false): number {
  let lo = 0;
  let hi = byStart.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const v = start[byStart[mid]];
    if (v < value || (after && v === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function inOrder(rows: Int32Array, start: Float64Array): boolean {
  for (let i = 1; i < rows.length; i++) if (start[rows[i]] < start[rows[i - 1]]) return false;
  return true;
}
