/**
 * Every stats figure of a large account pre-summed per UTC day and status, per UTC day and topic, and per UTC day
 * for each agent a figure was asked of (with enough conversations: adopt), kept by the columns (stats-columns.ts)
 * as rows are put: a figure of whole days — the account's year, a month, two days — alone or with one status, one
 * topic or one agent, is then a sum over a few hundred cells, not a pass over every conversation. Pure: no database.
 *
 * A cell holds what summarize counts (statuses, sentiments, outcomes, topics, durations, cost, hours by status)
 * and can subtract a row as well as add one. Its earliest and latest start cannot be subtracted: a cell that
 * lost the row at either end is marked, and the caller (who holds the rows) works out the first or last day's
 * cells again when an answer needs them.
 */
import { CONVERSATION_FILTER_PARAMETERS, CONVERSATION_STATUSES } from '@voice/contracts';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import { instantMicros, type Counter } from './codes-and-counts.js';

export const DAY_US = 86_400_000_000;
const HOURS = 24;
const STATUSES = CONVERSATION_STATUSES.length;
/** Durations up to this many seconds are counted in an array per cell; longer ones (rare) in a map. */
const DENSE_SECONDS = 4096;
/** A topic cell's key: the topic's code above the day (days since 1970 stay below 2^17 until the year 2328). */
const DAY_BITS = 2 ** 17;

/** `array`, or a copy with room for `size` (a few more: codes and durations arrive roughly in order). */
function grown<T extends Float64Array | Int32Array>(array: T, size: number): T {
  if (size <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(size + 8);
  next.set(array);
  return next;
}

/** One row as the cells count it: the columns' codes (sentiment: its code or NO_SENTIMENT; outcome: -1 for none). */
export interface RolledRow {
  agent: number;
  status: number;
  sentiment: number;
  outcome: number;
  topics: ArrayLike<number>;
  duration: number;
  /** Millionths of a dollar, NaN without a cost. */
  cost: number;
  start: number;
}

/** Which cells answer: whole UTC days `fromDay`…`toDay` (days since 1970), of one status, one topic, one agent or all. */
export interface CellSelection {
  fromDay: number;
  toDay: number;
  status?: number;
  topic?: number;
  agent?: number;
}

/** The filters whole-day rollups answer: a date range, and one status, one topic or one agent. */
const ROLLED_UP: ReadonlySet<string> = new Set(['start_date', 'end_date', 'status', 'topic', 'agent_id']);

/** Codes of the values a filter names, undefined for one no row holds (the columns' checks then answer nothing). */
export interface SelectionCodes {
  status(status: string): number | undefined;
  topic(topic: string): number | undefined;
  agent(agent: string): number | undefined;
}

/** The cells answering a filter, if they do: whole UTC days (or open ends) alone or with one status, topic or agent that some row holds. */
export function cellSelectionOf(f: ConversationListFilter, codes: SelectionCodes): CellSelection | undefined {
  if (!CONVERSATION_FILTER_PARAMETERS.every((p) => f[p] === undefined || ROLLED_UP.has(p))) return undefined;
  if ([f.status, f.topic, f.agent_id].filter((v) => v !== undefined).length > 1) return undefined;
  const status = f.status === undefined ? undefined : codes.status(f.status);
  const topic = f.topic === undefined ? undefined : codes.topic(f.topic);
  const agent = f.agent_id === undefined ? undefined : codes.agent(f.agent_id);
  if ((f.status !== undefined && status === undefined) || (f.topic !== undefined && topic === undefined) || (f.agent_id !== undefined && agent === undefined)) return undefined;
  const from = f.start_date === undefined ? undefined : instantMicros(f.start_date);
  const past = f.end_date === undefined ? undefined : instantMicros(f.end_date) + 1;
  if ((from !== undefined && from % DAY_US !== 0) || (past !== undefined && past % DAY_US !== 0)) return undefined;
  return { fromDay: from === undefined ? -Infinity : from / DAY_US, toDay: past === undefined ? Infinity : past / DAY_US - 1, status, topic, agent };
}

/** The rows the cells were summed from, as exactEnds reads them. */
export interface RowsOfColumns {
  count: number;
  start: Float64Array;
  rolled(row: number): RolledRow;
}

/** The sums summarize turns into figures (its own arrays and counters, added into). */
export interface FigureSums {
  byStatus: Float64Array;
  bySentiment: Float64Array;
  byOutcome: Float64Array;
  byTopic: Float64Array;
  durations: Counter;
  /** Indexed (hour - firstHour) × statuses + status, hours since 1970. */
  hours: Counter;
  firstHour: number;
}

export class Cell {
  count = 0;
  cost = 0;
  readonly byStatus = new Float64Array(STATUSES);
  bySentiment: Float64Array;
  byOutcome = new Float64Array(0);
  byTopic = new Float64Array(0);
  durations = new Int32Array(0);
  longer: Map<number, number> | undefined;
  readonly hours = new Float64Array(HOURS * STATUSES);
  first = Infinity;
  last = -Infinity;
  /** The row at first or last was taken out: they are bounds, no longer the values. */
  stale = false;

  constructor(sentiments: number) {
    this.bySentiment = new Float64Array(sentiments);
  }

  get bytes(): number {
    return 160 + this.byStatus.byteLength + this.bySentiment.byteLength + this.byOutcome.byteLength + this.byTopic.byteLength
      + this.durations.byteLength + this.hours.byteLength + (this.longer?.size ?? 0) * 40;
  }

  apply(r: RolledRow, day: number, sign: 1 | -1): void {
    this.count += sign;
    this.byStatus[r.status] += sign;
    this.bySentiment[r.sentiment] += sign;
    if (r.outcome >= 0) {
      this.byOutcome = grown(this.byOutcome, r.outcome + 1);
      this.byOutcome[r.outcome] += sign;
    }
    for (let i = 0; i < r.topics.length; i++) {
      this.byTopic = grown(this.byTopic, r.topics[i] + 1);
      this.byTopic[r.topics[i]] += sign;
    }
    if (r.duration < DENSE_SECONDS) {
      this.durations = grown(this.durations, r.duration + 1);
      this.durations[r.duration] += sign;
    } else {
      this.longer ??= new Map();
      const left = (this.longer.get(r.duration) ?? 0) + sign;
      if (left === 0) this.longer.delete(r.duration);
      else this.longer.set(r.duration, left);
    }
    if (r.cost === r.cost) this.cost += sign * r.cost;
    this.hours[Math.floor((r.start - day * DAY_US) / 3_600_000_000) * STATUSES + r.status] += sign;
    if (this.count === 0) {
      this.first = Infinity;
      this.last = -Infinity;
      this.stale = false;
    } else if (sign > 0) {
      this.first = Math.min(this.first, r.start);
      this.last = Math.max(this.last, r.start);
    } else if (r.start <= this.first || r.start >= this.last) {
      this.stale = true;
    }
  }

  addInto(sums: FigureSums, day: number): void {
    for (let s = 0; s < STATUSES; s++) sums.byStatus[s] += this.byStatus[s];
    for (let s = 0; s < this.bySentiment.length; s++) sums.bySentiment[s] += this.bySentiment[s];
    for (let o = 0; o < this.byOutcome.length; o++) sums.byOutcome[o] += this.byOutcome[o];
    for (let t = 0; t < this.byTopic.length; t++) sums.byTopic[t] += this.byTopic[t];
    sums.durations.addArray(this.durations);
    if (this.longer) for (const [duration, count] of this.longer) sums.durations.addMany(duration, count);
    // The cell's hours are the day's 24 × statuses in the same order as the sums' from the day's first hour.
    sums.hours.addArray(this.hours, (day * HOURS - sums.firstHour) * STATUSES);
  }
}

export class DayRollups {
  /** Key: day × STATUSES + status. */
  private readonly byDayStatus = new Map<number, Cell>();
  /** Key: topic × DAY_BITS + day. */
  private readonly byDayTopic = new Map<number, Cell>();
  /** Key: agent × DAY_BITS + day, for the adopted agents only. */
  private readonly byDayAgent = new Map<number, Cell>();
  private readonly agents = new Set<number>();
  /** The days that have cells, ascending (sorted when asked). */
  private days: number[] = [];
  private daysSorted = true;
  private readonly knownDays = new Set<number>();

  constructor(private readonly sentiments: number) {}

  /**
   * Every cell's bytes and 64 for its map entry, kept as cells change: the columns' memory is checked against its
   * budget at every answer, and adding up thousands of cells each time took ~3 ms at 5,000,000 conversations.
   */
  private cellBytes = 0;

  get bytes(): number {
    return this.knownDays.size * 16 + this.cellBytes;
  }

  /** Whether the agent's cells are kept. */
  adopted(agent: number): boolean {
    return this.agents.has(agent);
  }

  /** Keeps the agent's cells from now on, summed first from its rows (those of the columns with its code). */
  adopt(agent: number, rows: ArrayLike<number>, rolled: (row: number) => RolledRow): void {
    for (let i = 0; i < rows.length; i++) {
      const r = rolled(rows[i]);
      const day = Math.floor(r.start / DAY_US);
      this.applyTo(this.byDayAgent, agent * DAY_BITS + day, r, day, 1);
    }
    this.agents.add(agent);
  }

  /** Adds (sign 1) or takes out (sign -1) a row, in its day's status cell, in each of its topics' cells and its adopted agent's. */
  apply(r: RolledRow, sign: 1 | -1): void {
    const day = Math.floor(r.start / DAY_US);
    if (!this.knownDays.has(day)) {
      this.knownDays.add(day);
      this.daysSorted &&= this.days.length === 0 || this.days[this.days.length - 1] < day;
      this.days.push(day);
    }
    this.applyTo(this.byDayStatus, day * STATUSES + r.status, r, day, sign);
    for (let i = 0; i < r.topics.length; i++) this.applyTo(this.byDayTopic, r.topics[i] * DAY_BITS + day, r, day, sign);
    if (this.agents.has(r.agent)) this.applyTo(this.byDayAgent, r.agent * DAY_BITS + day, r, day, sign);
  }

  /** The selected cells of each day that has one with conversations, days ascending. */
  cellsOf(selection: CellSelection): Array<{ day: number; cells: Cell[] }> {
    if (!this.daysSorted) {
      this.days.sort((a, b) => a - b);
      this.daysSorted = true;
    }
    const found: Array<{ day: number; cells: Cell[] }> = [];
    for (const day of this.days) {
      if (day < selection.fromDay || day > selection.toDay) continue;
      const cells: Cell[] = [];
      const [keyed, code] = selection.topic !== undefined ? [this.byDayTopic, selection.topic] : [this.byDayAgent, selection.agent];
      if (code !== undefined) {
        const cell = keyed.get(code * DAY_BITS + day);
        if (cell && cell.count > 0) cells.push(cell);
      } else {
        for (let s = 0; s < STATUSES; s++) {
          if (selection.status !== undefined && s !== selection.status) continue;
          const cell = this.byDayStatus.get(day * STATUSES + s);
          if (cell && cell.count > 0) cells.push(cell);
        }
      }
      if (cells.length > 0) found.push({ day, cells });
    }
    return found;
  }

  /** Adds the selected cells into `sums`: their count, cost, and exact first and last start. */
  sumInto(sums: FigureSums, selection: CellSelection, rows: RowsOfColumns): { total: number; costMicros: number; first: number; last: number } {
    const days = this.cellsOf(selection);
    let [total, costMicros, first, last] = [0, 0, Infinity, -Infinity];
    for (const { day, cells } of days) {
      for (const cell of cells) {
        total += cell.count;
        costMicros += cell.cost;
        cell.addInto(sums, day);
      }
    }
    if (days.length > 0) {
      const [firstDay, lastDay] = [days[0], days[days.length - 1]];
      first = Math.min(...this.exactEnds(firstDay.day, selection, firstDay.cells, rows).map((c) => c.first));
      last = Math.max(...this.exactEnds(lastDay.day, selection, lastDay.cells, rows).map((c) => c.last));
    }
    return { total, costMicros, first, last };
  }

  /**
   * The selected cells of a day with exact first and last starts: a cell that lost the row at either end is worked
   * out again from the rows of that day (one pass over the start column).
   */
  exactEnds(day: number, selection: CellSelection, cells: Cell[], rows: RowsOfColumns): Cell[] {
    const stale = cells.filter((c) => c.stale);
    if (stale.length === 0) return cells;
    for (const cell of stale) {
      cell.first = Infinity;
      cell.last = -Infinity;
    }
    const [from, to] = [day * DAY_US, (day + 1) * DAY_US];
    for (let row = 0; row < rows.count; row++) {
      const start = rows.start[row];
      if (start < from || start >= to) continue;
      const cell = this.cellOfRow(day, selection, rows.rolled(row));
      if (cell && stale.includes(cell)) {
        cell.first = Math.min(cell.first, start);
        cell.last = Math.max(cell.last, start);
      }
    }
    for (const cell of stale) cell.stale = false;
    return cells;
  }

  /** The cell a row of `day` counts in: its status's, or the topic's if the row holds that topic, or the agent's if it is its. */
  private cellOfRow(day: number, { topic, agent }: CellSelection, r: RolledRow): Cell | undefined {
    if (agent !== undefined) return r.agent === agent ? this.byDayAgent.get(agent * DAY_BITS + day) : undefined;
    if (topic === undefined) return this.byDayStatus.get(day * STATUSES + r.status);
    for (let i = 0; i < r.topics.length; i++) if (r.topics[i] === topic) return this.byDayTopic.get(topic * DAY_BITS + day);
    return undefined;
  }

  /** The row added to (or taken out of) the cell at `key`, made if need be; what the cell takes counted. */
  private applyTo(cells: Map<number, Cell>, key: number, r: RolledRow, day: number, sign: 1 | -1): void {
    this.cellBytes += applyToCell(cells, key, r, day, sign, this.sentiments);
  }
}

/** Adds (sign 1) or takes out (-1) a row in the cell at `key`, made if need be; returns the change in the bytes the cells take. */
function applyToCell(cells: Map<number, Cell>, key: number, r: RolledRow, day: number, sign: 1 | -1, sentiments: number): number {
  let cell = cells.get(key);
  let change = 0;
  if (!cell) {
    cells.set(key, (cell = new Cell(sentiments)));
    change += 64;
  } else {
    change -= cell.bytes;
  }
  cell.apply(r, day, sign);
  return change + cell.bytes;
}

/**
 * One set of rows' figures per UTC day — a remembered search's matches — one cell a day, kept as the set gains and
 * loses rows (its owner applies each).
 */
export class DayCells {
  private readonly cells = new Map<number, Cell>();
  private cellBytes = 0;

  constructor(private readonly sentiments: number) {}

  /** The cells of these rows (`rolled`: each as the cells count it). */
  static of(rows: ArrayLike<number>, rolled: (row: number) => RolledRow, sentiments: number): DayCells {
    const cells = new DayCells(sentiments);
    for (let i = 0; i < rows.length; i++) cells.apply(rolled(rows[i]), 1);
    return cells;
  }

  get bytes(): number {
    return this.cellBytes;
  }

  apply(r: RolledRow, sign: 1 | -1): void {
    const day = Math.floor(r.start / DAY_US);
    this.cellBytes += applyToCell(this.cells, day, r, day, sign, this.sentiments);
  }

  /**
   * Adds the days `fromDay`…`toDay` into `sums`: their count, cost, and exact first and last start (`ends` gives a
   * day's from its rows, asked only when that day's cell lost the row at either end).
   */
  sumInto(sums: FigureSums, fromDay: number, toDay: number, ends: (day: number) => { first: number; last: number }) {
    const days = [...this.cells].filter(([day, cell]) => day >= fromDay && day <= toDay && cell.count > 0).sort((a, b) => a[0] - b[0]);
    let [total, costMicros] = [0, 0];
    for (const [day, cell] of days) {
      total += cell.count;
      costMicros += cell.cost;
      cell.addInto(sums, day);
    }
    const exact = ([day, cell]: [number, Cell]) => {
      if (cell.stale) [{ first: cell.first, last: cell.last }, cell.stale] = [ends(day), false];
      return cell;
    };
    return { total, costMicros, first: days.length ? exact(days[0]).first : Infinity, last: days.length ? exact(days[days.length - 1]).last : -Infinity };
  }
}

/** The first and last start among `rows` on that UTC day (`start`: each row's). */
export function endsAmong(rows: ArrayLike<number>, start: Float64Array, day: number): { first: number; last: number } {
  let [first, last] = [Infinity, -Infinity];
  for (let i = 0; i < rows.length; i++) {
    const at = start[rows[i]];
    if (Math.floor(at / DAY_US) === day) [first, last] = [Math.min(first, at), Math.max(last, at)];
  }
  return { first, last };
}
