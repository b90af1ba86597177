/**
 * The substring searches one account's columns remember (least recently used first, at most `max`): per row
 * whether the search matches it, as SQL's LIKE found it, kept up to date with the search text of every row put
 * since; and, built when first asked, the matching rows in start-time order. That order is what a list page
 * and a count need: a later change to a few matches is merged into it (one pass) rather than sorted again.
 * Pure: no database.
 */
import { withRoom } from './row-index.js';
import { FilteredView, merged } from './filtered-views.js';
import type { DayCells, RolledRow } from './day-rollups.js';

/** Filtered views kept per search (the least recently used is dropped past it). */
const MAX_VIEWS = 8;

interface Remembered {
  /** Per row, 1 when the search matches it. */
  members: Uint8Array;
  /** The matching rows by start time (ties in any order), once asked for. */
  byStart?: Int32Array;
  /** The matching rows in row order, once asked for (undefined again when a row's membership changes). */
  byRow?: Int32Array;
  /** Rows whose membership or start changed since byStart was built (merged in when it is next asked for). */
  changed: number[];
  /** The search with other filters (keyed by them), in the list's orders. */
  views: Map<string, FilteredView>;
  /** Its matches' figures per day, once asked for (kept as rows are put: leaving, then update). */
  cells?: DayCells;
}

export class RememberedSearches {
  private readonly searches = new Map<string, Remembered>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.searches.size;
  }

  /** Every array they hold (for the memory the columns count). */
  get arrays(): Array<Uint8Array | Int32Array> {
    return [...this.searches.values()].flatMap((s) => [
      s.members, ...(s.byStart ? [s.byStart] : []), ...(s.byRow ? [s.byRow] : []), ...[...s.views.values()].flatMap((v) => v.arrays),
    ]);
  }

  /** Whether some search keeps day cells (then put gives the row as it was, and as it is). */
  get keepCells(): boolean {
    for (const s of this.searches.values()) if (s.cells) return true;
    return false;
  }

  /** What the searches' day cells take. */
  get cellBytes(): number {
    let bytes = 0;
    for (const s of this.searches.values()) bytes += s.cells?.bytes ?? 0;
    return bytes;
  }

  /** Before a held row is put again: taken out of the day cells of the searches it matched (`was`: it as they counted it). */
  leaving(row: number, was: RolledRow): void {
    for (const s of this.searches.values()) if (s.cells && s.members[row] === 1) s.cells.apply(was, -1);
  }

  /** The search's day cells, made with `build` the first time (undefined when the search is not remembered). */
  cellsOf(term: string, build: () => DayCells): DayCells | undefined {
    const s = this.searches.get(term);
    if (s) s.cells ??= build();
    return s?.cells;
  }

  /**
   * After a row was put (`rows`: how many the columns hold now; `moved`: the row is new or its start changed; `now`:
   * the row as day cells count it, when keepCells). Without its search text the searches could be wrong now, so
   * they are forgotten.
   */
  update(row: number, rows: number, searchText: string | undefined, moved: boolean, now?: RolledRow): void {
    if (searchText === undefined) {
      this.searches.clear();
      return;
    }
    for (const [term, s] of this.searches) {
      s.members = withRoom(s.members, rows);
      const was = s.members[row] === 1;
      const is = searchText.includes(term);
      s.members[row] = is ? 1 : 0;
      if (was !== is) s.byRow = undefined;
      if (s.byStart && (was !== is || (is && moved))) s.changed.push(row);
      if (was || is) for (const view of s.views.values()) view.noteChanged(row);
      if (is && now) s.cells?.apply(now, 1);
    }
  }

  /** Remembers the rows a search matches now (a row appearing twice counts once). */
  remember(term: string, matching: Int32Array, rows: number): void {
    const members = new Uint8Array(Math.max(rows, 1024));
    for (const row of matching) members[row] = 1;
    this.searches.delete(term);
    this.searches.set(term, { members, changed: [], views: new Map() });
    if (this.searches.size > this.max) this.searches.delete(this.searches.keys().next().value!);
  }

  /** Forgets the least recently used search; false when none is remembered. */
  forgetOldest(): boolean {
    const oldest = this.searches.keys().next();
    if (oldest.done) return false;
    this.searches.delete(oldest.value);
    return true;
  }

  /** Whether the search is remembered (it becomes the most recently used). */
  has(term: string): boolean {
    const s = this.searches.get(term);
    if (!s) return false;
    this.searches.delete(term);
    this.searches.set(term, s);
    return true;
  }

  /**
   * The rows the remembered search matches in row order — the order a pass over every figure reads the columns
   * fastest in (in start-time order each row is elsewhere in memory) — or undefined when it is not remembered.
   */
  byRow(term: string, rows: number): Int32Array | undefined {
    if (!this.has(term)) return undefined;
    const s = this.searches.get(term)!;
    s.byRow ??= matchingRows(s.members, rows);
    return s.byRow;
  }

  /** Whether the remembered search matches the row (false when it is not remembered). */
  matches(term: string, row: number): boolean {
    return this.searches.get(term)?.members[row] === 1;
  }

  /**
   * The search's view with the other filters `key` names (made, empty, when first asked; the most recently used
   * kept), or undefined when the search is not remembered.
   */
  view(term: string, key: string): FilteredView | undefined {
    const s = this.searches.get(term);
    if (!s) return undefined;
    const view = s.views.get(key) ?? new FilteredView();
    s.views.delete(key);
    s.views.set(key, view);
    if (s.views.size > MAX_VIEWS) s.views.delete(s.views.keys().next().value!);
    return view;
  }

  /** The rows the remembered search matches, by start time (`start`: each row's), or undefined when it is not remembered. */
  byStart(term: string, start: Float64Array, rows: number): Int32Array | undefined {
    if (!this.has(term)) return undefined;
    const s = this.searches.get(term)!;
    const byTime = (a: number, b: number) => start[a] - start[b];
    if (!s.byStart || s.changed.length > (s.byStart.length >> 3) + 1024) {
      s.byStart = matchingRows(s.members, rows).sort(byTime);
    } else if (s.changed.length > 0) {
      const isChanged = new Uint8Array(rows);
      for (const row of s.changed) isChanged[row] = 1;
      const added = [...new Set(s.changed)].filter((row) => s.members[row] === 1).sort(byTime);
      s.byStart = merged(s.byStart, isChanged, added, byTime);
    }
    s.changed = [];
    return s.byStart;
  }
}

/** The rows whose member byte is set, in row order (a new array). */
function matchingRows(members: Uint8Array, rows: number): Int32Array {
  let count = 0;
  for (let row = 0; row < rows; row++) count += members[row];
  const matching = new Int32Array(count);
  for (let row = 0, n = 0; row < rows; row++) if (members[row] === 1) matching[n++] = row;
  return matching;
}
