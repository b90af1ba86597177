/**
 * One account's conversations as columns in memory (typed arrays, strings as dictionary codes), and every
 * figure of GET /v1/conversations/stats computed from them in one pass over the rows — or, for whole UTC days
 * alone or with one status or one topic, summed from day rollups (day-rollups.ts) kept beside them. Pure: no
 * database; stats-memory.ts keeps it equal to the read model. PostgreSQL needs ~0.3 µs per row per aggregate,
 * 2.4 s for a million; this loop needs a few nanoseconds.
 */
import { CONVERSATION_FILTER_PARAMETERS, CONVERSATION_STATUSES, SENTIMENTS, sentimentRank, type ConversationFilterField, type ConversationStatus } from '@voice/contracts';
import { answeredByColumns, compileRowChecks, selectRows, type HeldColumns, type HeldField, type RowTopics } from '../conversation-filters/conversation-filters.js';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import type { StatsSummary, TimelineRow } from './conversation-stats.store.js';
import { Counter, Dictionary, instantMicros } from './codes-and-counts.js';
import { figuresOf, tallyRows, type Tallies } from './stats-figures.js';
import { cellSelectionOf, DayCells, DayRollups, endsAmong, type CellSelection, type FigureSums, type RolledRow } from './day-rollups.js';
import { RowIndex, withRoom } from './row-index.js';
import { RememberedSearches } from './remembered-searches.js';
import { RowsByCode } from './rows-by-code.js';
import { pageKeysOf, type PageOrder } from './page-keys.js';
import type { PageKeys } from '../list-conversations/pages-in-memory.js';

/** A conversation as the stats see it (what stats-memory.ts reads from the read model). */
export interface StatsRow {
  id: string;
  agent_id: string;
  status: ConversationStatus;
  /** Microseconds since the epoch (PostgreSQL's precision). */
  start_us: number;
  duration: number;
  sentiment: string | null;
  /** The list's sentiment filter compares this rank (sentimentRank). */
  sentiment_rank: number | null;
  outcome: string | null;
  /** Lower-cased, each once. */
  topics: readonly string[];
  has_recording: boolean;
  has_transcript: boolean;
  /** Millionths of a dollar, or null without a cost. */
  cost_micros: number | null;
}

/** The fields the columns hold for the filters; the others (caller, cost) are left to SQL. */
const HELD_FIELDS: ReadonlySet<ConversationFilterField> = new Set<ConversationFilterField>([
  'agent_id', 'status', 'sentiment', 'outcome', 'duration', 'start_time', 'has_recording', 'has_transcript', 'topics',
]);
/** Answered once SQL has named the matching conversations: the text is not in memory. */
const SEARCH = ['search'] as const;

export { costMicros, instantMicros } from './codes-and-counts.js';

/** Whether the columns answer these filters. */
export function answeredInMemory(f: ConversationListFilter): boolean {
  return answeredByColumns(f, HELD_FIELDS, SEARCH);
}

const STATUS_CODE = new Map<string, number>(CONVERSATION_STATUSES.map((s, i) => [s, i]));
const SENTIMENT_CODE = new Map<string, number>(SENTIMENTS.map((s, i) => [s, i]));
const NO_SENTIMENT = SENTIMENTS.length;
const HOUR_US = 3_600_000_000;
/** Searches remembered per account (one byte per conversation each, and four per match once in start-time order). */
const MAX_SEARCHES = 16;
/**
 * From this many conversations an account's columns also keep day rollups (day-rollups.ts): built as the rows are
 * loaded when the account has that many then, else at the first answer they serve. Below it one pass over the rows
 * takes a few milliseconds, and the cells (a few thousand a year, ~10 KB each) would outweigh the columns.
 */
export const ROLLUP_MIN_ROWS = 500_000;
/** From this many conversations an agent or a remembered search of such an account gets day cells of its own (~5 KB a day) when asked for; below, a pass over its rows. */
export const OWN_CELLS_MIN_ROWS = 5_000;

/** What one row of the columns takes: the columns themselves (41 B), the row index (16–24 B), two topics' codes (8 B). */
export const BYTES_PER_ROW = 72;
/** The least one row can take: its columns and its place in the row index, without topics. */
export const BYTES_PER_ROW_AT_LEAST = 57;

export class StatsColumns implements HeldColumns {
  private readonly rowOf: RowIndex;
  private readonly agents = new Dictionary();
  private readonly outcomes = new Dictionary();
  private readonly topicNames = new Dictionary();
  private rows = 0;
  // Each field starts as an array of its final type (sized in the constructor): V8 then knows the type a field
  // holds, and the loops over the columns read them without checks (fields left undefined until the constructor
  // measured 15–20 % slower in summarize).
  private agent = new Int32Array(0);
  private status = new Uint8Array(0);
  private sentiment = new Uint8Array(0);
  private rank = new Int8Array(0);
  private outcome = new Int32Array(0);
  private start = new Float64Array(0);
  private duration = new Int32Array(0);
  private cost = new Float64Array(0);
  private recording = new Uint8Array(0);
  private transcript = new Uint8Array(0);
  /** Each row's topics: codes at topicPool[topicAt[row] … + topicCount[row]). A changed row's are appended anew. */
  private topicAt = new Int32Array(0);
  private topicCount = new Int32Array(0);
  private topicPool = new Int32Array(0);
  private pooled = 0;
  private readonly searches = new RememberedSearches(MAX_SEARCHES);
  /** Each agent's rows (large accounts, once a figure of one agent was asked). */
  private readonly agentRows = new RowsByCode();
  /**
   * The array a filter's kept rows are written into, reused by every answer (each reads them before it returns): a new
   * one per answer (4 MB for a million rows) was zeroed each time, and slowed the answers after it.
   */
  private scratch = new Int32Array(0);
  private readonly room = (size: number): Int32Array => {
    if (this.scratch.length < size) this.scratch = new Int32Array(size);
    return this.scratch.subarray(0, size);
  };
  /** Bounds of every duration and start hour ever put (they only widen): the counters below are arrays over them. */
  private maxDuration = 0;
  private firstHour = Infinity;
  private lastHour = -Infinity;
  /** Every figure per day and status and per day and topic, once an answer has used them (then kept by put). */
  private rollups: DayRollups | undefined;

  /**
   * `capacity`: the rows expected (an account's total when it is loaded), allocated at once rather than grown into.
   * `rollupMinRows`: from how many rows whole-day answers come from rollups; `ownCellsMinRows`: from how many rows of
   * an agent or matches of a search they get day cells of their own.
   */
  constructor(capacity = 0, private readonly rollupMinRows = ROLLUP_MIN_ROWS, private readonly ownCellsMinRows = OWN_CELLS_MIN_ROWS) {
    this.rowOf = new RowIndex(capacity);
    this.agent = new Int32Array(capacity);
    this.status = new Uint8Array(capacity);
    this.sentiment = new Uint8Array(capacity);
    this.rank = new Int8Array(capacity);
    this.outcome = new Int32Array(capacity);
    this.start = new Float64Array(capacity);
    this.duration = new Int32Array(capacity);
    this.cost = new Float64Array(capacity);
    this.recording = new Uint8Array(capacity);
    this.transcript = new Uint8Array(capacity);
    this.topicAt = new Int32Array(capacity);
    this.topicCount = new Int32Array(capacity);
    // An account loaded at its size builds its rollups as its rows come in (between the load's batches).
    if (capacity >= rollupMinRows) this.rollups = new DayRollups(NO_SENTIMENT + 1);
  }

  get size(): number {
    return this.rows;
  }

  /**
   * The memory the columns take: every array as allocated (room not yet used included), the remembered searches,
   * and the dictionaries' names (two bytes a character and a map entry each, as V8 holds them at most).
   */
  get bytes(): number {
    const arrays = [
      this.agent, this.status, this.sentiment, this.rank, this.outcome, this.start, this.duration, this.cost, this.recording,
      this.transcript, this.topicAt, this.topicCount, this.topicPool, this.scratch, ...this.searches.arrays,
    ];
    let bytes = this.agentRows.bytes + this.searches.cellBytes + this.rowOf.bytes + this.agents.bytes + this.outcomes.bytes + this.topicNames.bytes + (this.rollups?.bytes ?? 0);
    for (const array of arrays) bytes += array.byteLength;
    return bytes;
  }

  /** Whether a search is remembered (only then does put need the rows' search text). */
  get remembersSearches(): boolean {
    return this.searches.size > 0;
  }

  /**
   * Adds the conversation or replaces the one with its id. With its search text, the remembered searches
   * (rememberSearch) are kept up to date for it; without, they are forgotten (they could be wrong now).
   */
  put(r: StatsRow, searchText?: string): void {
    const { row, added } = this.rowOf.rowFor(r.id);
    const moved = added || this.start[row] !== r.start_us;
    // The rollups and the searches' day cells take out what the row was (its topics read before they are overwritten) and add what it is.
    const cells = this.rollups !== undefined || this.searches.keepCells;
    const was = added || !cells ? undefined : this.rolled(row);
    if (was) this.rollups?.apply(was, -1);
    if (was) this.searches.leaving(row, was);
    if (added) {
      this.rows++;
      this.agent = withRoom(this.agent, this.rows);
      this.status = withRoom(this.status, this.rows);
      this.sentiment = withRoom(this.sentiment, this.rows);
      this.rank = withRoom(this.rank, this.rows);
      this.outcome = withRoom(this.outcome, this.rows);
      this.start = withRoom(this.start, this.rows);
      this.duration = withRoom(this.duration, this.rows);
      this.cost = withRoom(this.cost, this.rows);
      this.recording = withRoom(this.recording, this.rows);
      this.transcript = withRoom(this.transcript, this.rows);
      this.topicAt = withRoom(this.topicAt, this.rows);
      this.topicCount = withRoom(this.topicCount, this.rows);
    } else if (this.pooled > 4 * this.rows + 1024) {
      this.compactTopics();
    }
    const agent = this.agents.code(r.agent_id);
    if (added) this.agentRows.added(row, agent);
    else if (this.agent[row] !== agent) this.agentRows.changed();
    this.agent[row] = agent;
    this.status[row] = STATUS_CODE.get(r.status) ?? 0;
    this.sentiment[row] = r.sentiment === null ? NO_SENTIMENT : (SENTIMENT_CODE.get(r.sentiment) ?? NO_SENTIMENT);
    this.rank[row] = r.sentiment_rank ?? -1;
    this.outcome[row] = r.outcome === null ? -1 : this.outcomes.code(r.outcome);
    this.start[row] = r.start_us;
    this.duration[row] = r.duration;
    this.maxDuration = Math.max(this.maxDuration, r.duration);
    const hour = Math.floor(r.start_us / HOUR_US);
    this.firstHour = Math.min(this.firstHour, hour);
    this.lastHour = Math.max(this.lastHour, hour);
    this.cost[row] = r.cost_micros ?? Number.NaN;
    this.recording[row] = r.has_recording ? 1 : 0;
    this.transcript[row] = r.has_transcript ? 1 : 0;
    // A row put again with no more topics than it had keeps its place in the pool: a catch-up re-reads every row
    // changed since the oldest snapshot still open on the server, so the same rows come back while a long
    // transaction runs anywhere, and appending them each time grew the pool (and the bytes counted) with no change.
    if (added || r.topics.length > this.topicCount[row]) {
      this.topicPool = withRoom(this.topicPool, this.pooled + r.topics.length);
      this.topicAt[row] = this.pooled;
      this.pooled += r.topics.length;
    }
    this.topicCount[row] = r.topics.length;
    const first = this.topicAt[row];
    for (let i = 0; i < r.topics.length; i++) this.topicPool[first + i] = this.topicNames.code(r.topics[i]);
    const now = cells ? this.rolled(row) : undefined;
    if (now) this.rollups?.apply(now, 1);
    if (this.searches.size > 0) this.searches.update(row, this.rows, searchText, moved, now);
  }

  /** The rows a remembered search matches, in row order (the most recently used searches are kept), or undefined. */
  searchRows(term: string): Int32Array | undefined {
    return this.searches.byRow(term, this.rows);
  }

  /** Forgets the least recently used search; false when none is remembered. */
  forgetOldestSearch(): boolean {
    return this.searches.forgetOldest();
  }

  /** Whether the search is remembered. */
  remembers(term: string): boolean {
    return this.searches.has(term);
  }

  /** Remembers the rows a search matches now (substring of the lower-cased search text, as SQL's LIKE found them). */
  rememberSearch(term: string, rows: Int32Array): void {
    this.searches.remember(term, rows, this.rows);
  }

  /**
   * The total of a remembered search's list (with the other filters the columns hold) and the keys of its page at
   * `offset`; undefined when the search is not remembered. With other filters, or in duration order, the page comes
   * from the search's view with those filters (filtered-views.ts), kept in the list's orders.
   */
  pageKeys(f: ConversationListFilter & { search: string }, sortBy: PageOrder, offset: number, limit: number): PageKeys | undefined {
    const matches = this.searches.byStart(f.search, this.start, this.rows);
    if (!matches) return undefined;
    const checks = compileRowChecks(f, this, SEARCH);
    if (checks === undefined) throw new Error('StatsColumns.pageKeys: a filter the columns do not hold (answeredInMemory says which)');
    const page = (ordered: Int32Array) => pageKeysOf({ ordered, start: this.start, duration: this.duration }, sortBy, f.sort_order === 'desc', offset, limit);
    if (checks === 'nothing') return page(new Int32Array(0));
    if (sortBy === 'start_time' && checks.values.length === 0 && checks.includes.length === 0) return page(matches);
    const view = this.searches.view(f.search, JSON.stringify(CONVERSATION_FILTER_PARAMETERS.map((p) => (p === 'search' ? null : (f[p] ?? null)))))!;
    return page(view.ordered(sortBy, {
      matches, rows: this.rows, start: this.start, duration: this.duration, longest: this.maxDuration,
      // Copied out of the reused array: the view keeps them.
      kept: (rows) => (selectRows(checks, this.rows, this.topics, rows, this.room) ?? rows).slice(),
      member: (row) => this.searches.matches(f.search, row),
    }));
  }

  /** Each row's topic codes, where the checks of the topic filter find them. */
  private get topics(): RowTopics {
    return { at: this.topicAt, count: this.topicCount, pool: this.topicPool };
  }

  /** Drops the topic codes of replaced rows. */
  private compactTopics(): void {
    const pool = new Int32Array(Math.max(1024, this.pooled));
    let at = 0;
    for (let row = 0; row < this.rows; row++) {
      pool.set(this.topicPool.subarray(this.topicAt[row], this.topicAt[row] + this.topicCount[row]), at);
      this.topicAt[row] = at;
      at += this.topicCount[row];
    }
    this.topicPool = pool;
    this.pooled = at;
  }

  /** The rows of these conversation ids (ids not held are skipped), in row order. */
  rowsOf(ids: readonly string[]): Int32Array {
    const rows = new Int32Array(ids.length);
    let held = 0;
    for (const id of ids) {
      const row = this.rowOf.find(id);
      if (row !== undefined) rows[held++] = row;
    }
    return rows.subarray(0, held).sort();
  }

  /** The columns the filters test (conversation-filters.ts compiles each request's filters to checks of them). */
  field(name: ConversationFilterField): HeldField | undefined {
    const find = (names: Dictionary) => (value: string | number | boolean) => names.find(String(value));
    switch (name) {
      case 'agent_id': return { values: this.agent, code: find(this.agents) };
      case 'status': return { values: this.status, code: (value) => STATUS_CODE.get(String(value)) };
      case 'sentiment': return { values: this.rank, code: (value) => sentimentRank(String(value)) ?? undefined };
      case 'outcome': return { values: this.outcome, code: find(this.outcomes) };
      // Many per row (each row's at topicAt in the pool): summarize looks for the code among them.
      case 'topics': return { values: this.topicPool, code: find(this.topicNames) };
      case 'duration': return { values: this.duration, code: Number };
      case 'start_time': return { values: this.start, code: (value) => instantMicros(String(value)) };
      case 'has_recording': return { values: this.recording, code: (value) => (value ? 1 : 0) };
      case 'has_transcript': return { values: this.transcript, code: (value) => (value ? 1 : 0) };
      default: return undefined;
    }
  }

  /**
   * Every figure of the conversations that pass the filter (answeredInMemory's filters, but the search), as the
   * SQL store reads them; among `only` (rowsOf) when given — the search's matches.
   */
  summarize(f: ConversationListFilter, only?: Int32Array): { summary: StatsSummary; hours: TimelineRow[] } {
    const statuses = CONVERSATION_STATUSES.length;
    const byStatus = new Float64Array(statuses);
    const bySentiment = new Float64Array(NO_SENTIMENT + 1);
    const byOutcome = new Float64Array(this.outcomes.names.length);
    const byTopic = new Float64Array(this.topicNames.names.length);
    // Counters indexed by duration and by hour (the rows' own ranges; a few MB at most, else maps).
    const durations = new Counter(this.maxDuration + 1);
    const hours = new Counter(this.rows === 0 ? 0 : (this.lastHour - this.firstHour + 1) * statuses);
    const sums = { byStatus, bySentiment, byOutcome, byTopic, durations, hours, firstHour: this.firstHour };
    // The count, cost, first and last start of the conversations summed into `sums`, however they were summed.
    const answer = (t: Omit<Tallies, keyof FigureSums>) => figuresOf({ ...t, ...sums }, this.outcomes.names, this.topicNames.names);
    const checks = compileRowChecks(f, this, SEARCH);
    if (checks === 'nothing') return answer({ total: 0, costMicros: 0, first: Infinity, last: -Infinity });
    if (checks === undefined) throw new Error('StatsColumns.summarize: a filter the columns do not hold (answeredInMemory says which)');
    const searched = only && this.searchCells(f, only);
    if (searched) {
      return answer(searched.cells.sumInto(sums, searched.fromDay, searched.toDay, (day) => endsAmong(only!, this.start, day)));
    }
    const selection = only ? undefined : this.rolledUpSelection(f);
    if (selection) {
      const rows = { count: this.rows, start: this.start, rolled: (row: number) => this.rolled(row) };
      return answer(this.rollups!.sumInto(sums, selection, rows));
    }
    // One agent of a large account (too few rows to keep its cells): a pass over its rows rather than a check of every row.
    const agent = only || f.agent_id === undefined || this.rows < this.rollupMinRows ? undefined : this.agents.find(f.agent_id);
    const among = agent === undefined ? only : this.agentRows.rowsOf(agent, this.agent, this.rows);
    const selected = selectRows(checks, this.rows, this.topics, among, this.room);
    const columns = { status: this.status, sentiment: this.sentiment, outcome: this.outcome, start: this.start, duration: this.duration, cost: this.cost, topics: this.topics };
    return answer(tallyRows(columns, selected ?? this.rows, sums));
  }

  /** A row as the rollups count it (its topics a view of the pool: read before the pool changes). */
  private rolled(row: number): RolledRow {
    return {
      agent: this.agent[row], status: this.status[row], sentiment: this.sentiment[row], outcome: this.outcome[row],
      topics: this.topicPool.subarray(this.topicAt[row], this.topicAt[row] + this.topicCount[row]),
      duration: this.duration[row], cost: this.cost[row], start: this.start[row],
    };
  }

  /** A remembered search's day cells (made the first time) and the whole days asked: for its matches (`rows`) alone, enough of them, in a large account. */
  private searchCells(f: ConversationListFilter, rows: Int32Array) {
    if (f.search === undefined || rows !== this.searches.byRow(f.search, this.rows) || this.rows < this.rollupMinRows || rows.length < this.ownCellsMinRows) return undefined;
    const selection = f.status ?? f.topic ?? f.agent_id ? undefined : cellSelectionOf({ ...f, search: undefined }, { status: () => 0, topic: () => 0, agent: () => 0 });
    const cells = selection && this.searches.cellsOf(f.search, () => DayCells.of(rows, (row) => this.rolled(row), NO_SENTIMENT + 1));
    return cells && { cells, fromDay: selection.fromDay, toDay: selection.toDay };
  }

  /**
   * The rollup cells answering this filter, when they do (cellSelectionOf); the rollups are built here the first
   * time, and an agent's cells the first time it is asked for, if it has enough rows to be worth them.
   */
  private rolledUpSelection(f: ConversationListFilter): CellSelection | undefined {
    if (this.rows < this.rollupMinRows) return undefined;
    const codes = { status: (status: string) => STATUS_CODE.get(status), topic: (topic: string) => this.topicNames.find(topic), agent: (agent: string) => this.agents.find(agent) };
    const selection = cellSelectionOf(f, codes);
    if (selection && !this.rollups) {
      this.rollups = new DayRollups(NO_SENTIMENT + 1);
      for (let row = 0; row < this.rows; row++) this.rollups.apply(this.rolled(row), 1);
    }
    const agent = selection?.agent;
    if (agent !== undefined && !this.rollups!.adopted(agent)) {
      const rows = this.agentRows.rowsOf(agent, this.agent, this.rows);
      if (rows.length < this.ownCellsMinRows) return undefined;
      this.rollups!.adopt(agent, rows, (row) => this.rolled(row));
    }
    return selection;
  }
}
