/**
 * The stats of large accounts from columns in memory (stats-columns.ts), kept equal to the read model:
 * - loaded once in one snapshot (keyset batches, never a million row objects at once), in the background:
 *   until the columns are there, SQL answers;
 * - before every answer, brought up to date in a new snapshot with the rows written since the previous
 *   one (changed_xid >= that snapshot's xmin, see migration 1732350000000), so an answer is exactly the
 *   committed read model at its own snapshot, on every replica, with no message to miss;
 * - checked against the account's kept total in that snapshot: every row of the table is in the columns,
 *   so equal counts mean equal sets; a difference (rows removed by a projection rebuild) reloads them.
 * Accounts below `minRows` are quick in SQL and stay there. `budgetBytes` bounds the memory the columns take in
 * this process, all accounts together (StatsColumns.bytes, ~72 bytes a conversation): least recently used accounts
 * are dropped to make room, and an account that cannot fit alone is left to SQL. An account whose costs are not
 * whole millionths is left to SQL too, whose numeric sum is exact.
 */
import type { DataSource, QueryRunner } from 'typeorm';
import type { ConversationStatus } from '@voice/contracts';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import type { PageKeys, PagesInMemory } from '../list-conversations/pages-in-memory.js';
import { filterPredicates } from '../conversation-filters/conversation-filters.js';
import { isoOfMicros } from '../conversation/conversation.views.js';
import { inSnapshot } from '../list-conversations/list-conversations.store.js';
import { rollUpHours } from './conversation-stats.rules.js';
import type { StatsRead, StatsTimeline } from './conversation-stats.store.js';
import { answeredInMemory, BYTES_PER_ROW, BYTES_PER_ROW_AT_LEAST, costMicros, ROLLUP_MIN_ROWS, StatsColumns, type StatsRow } from './stats-columns.js';

export interface StatsMemoryLimits {
  /** Accounts with fewer conversations are answered by SQL. */
  minRows: number;
  /** The memory the columns may take in this process, all accounts together, in bytes. */
  budgetBytes: number;
  /** From how many conversations an account's columns keep day rollups (ROLLUP_MIN_ROWS unless given). */
  rollupMinRows?: number;
  /** Rows read per statement while loading (LOAD_BATCH unless given). */
  loadBatch?: number;
}

interface Held {
  columns: StatsColumns;
  /** The xmin of the snapshot the columns equal (xid8 as text). */
  xmin: string;
  /** When it was last loaded or read, in this process's count of those (clock readings can tie). */
  usedAt: number;
}

const LOAD_BATCH = 20_000;
/** How long an account found unsuited (too small, too large, inexact costs) is not looked at again. */
const RECHECK_MS = 60_000;

const COLUMNS = `id, agent_id, status, (extract(epoch FROM start_time) * 1000000)::int8::text AS start_us, duration, sentiment,
                 sentiment_rank, outcome, topics_lower, has_recording, has_transcript, cost_amount::text AS cost`;

interface RawRow {
  id: string; agent_id: string; status: ConversationStatus; start_us: string; duration: number; sentiment: string | null;
  sentiment_rank: number | null; outcome: string | null; topics_lower: string[]; has_recording: boolean; has_transcript: boolean; cost: string | null;
}

/** The row as the columns take it, or undefined when its cost is not whole millionths of a dollar. */
function statsRow(r: RawRow): StatsRow | undefined {
  const cost = r.cost === null ? null : costMicros(r.cost);
  if (cost === undefined) return undefined;
  return {
    id: r.id, agent_id: r.agent_id, status: r.status, start_us: Number(r.start_us), duration: r.duration, sentiment: r.sentiment,
    sentiment_rank: r.sentiment_rank, outcome: r.outcome, topics: [...new Set(r.topics_lower)], has_recording: r.has_recording,
    has_transcript: r.has_transcript, cost_micros: cost,
  };
}

class Unsuited extends Error {}
/** The process is shutting down: a load in progress stops between batches. */
class Closed extends Error {}

export class StatsMemory implements PagesInMemory {
  private readonly held = new Map<string, Held>();
  private readonly unsuitedUntil = new Map<string, number>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Per account, the read in progress: loads and catch-ups of one account never overlap. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Searches being remembered in the background (account and term). */
  private readonly remembering = new Set<string>();
  private lastLoad: Promise<void> = Promise.resolve();
  private uses = 0;
  private closed = false;

  constructor(private readonly dataSource: DataSource, private readonly limits: StatsMemoryLimits) {}

  /** Conversations held, all accounts together. */
  get rowsHeld(): number {
    let rows = 0;
    for (const h of this.held.values()) rows += h.columns.size;
    return rows;
  }

  /** The memory the held columns take (StatsColumns.bytes), all accounts together. */
  get bytesHeld(): number {
    let bytes = 0;
    for (const h of this.held.values()) bytes += h.columns.bytes;
    return bytes;
  }

  /** The accounts held, least recently used first. */
  get accountsHeld(): string[] {
    return [...this.held.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt).map(([accountId]) => accountId);
  }

  /**
   * The figures from memory, or undefined when this filter or account is answered by SQL — also while the
   * account's columns are being loaded (started by the first such request): no answer waits for a load.
   */
  async read(accountId: string, f: ConversationListFilter, timeline: StatsTimeline): Promise<StatsRead | undefined> {
    const summarized = await this.withColumns(accountId, f, (_db, columns) =>
      columns.summarize(f, f.search === undefined ? undefined : columns.searchRows(f.search)));
    if (!summarized) return undefined;
    const range = timeline(summarized.summary);
    return { summary: summarized.summary, timeline: range ? rollUpHours(range.bucket, summarized.hours) : [] };
  }

  /**
   * A list page of a substring search from the held columns (PagesInMemory): its total and its rows' sort keys,
   * in start-time or duration order, read with `read` in the snapshot the columns are brought up to. A search not
   * remembered yet is answered by SQL (undefined) and remembered in the background: finding and ordering every
   * match for the columns takes longer than SQL's own answer, and a search asked once should not wait for it.
   */
  async withPageKeys<T>(accountId: string, f: ConversationListFilter, read: (db: QueryRunner, page: PageKeys) => Promise<T>): Promise<T | undefined> {
    const { search, sort_by: sortBy } = f;
    if (search === undefined || (sortBy !== 'start_time' && sortBy !== 'duration')) return undefined;
    if (!this.held.get(accountId)?.columns.remembers(search)) {
      this.rememberLater(accountId, f);
      return undefined;
    }
    const offset = (f.page - 1) * f.per_page;
    return this.withColumns(accountId, f, (db, columns) => read(db, columns.pageKeys({ ...f, search }, sortBy, offset, f.per_page)!));
  }

  /** Resolves once every read of the account queued so far (a load, a search being remembered) has ended. */
  async idle(accountId: string): Promise<void> {
    await this.loading.get(accountId)?.catch(() => undefined);
    await this.queues.get(accountId);
  }

  /** Remembers the filter's search with the account's columns (loading them first if need be), once however many ask. */
  private rememberLater(accountId: string, f: ConversationListFilter): void {
    const key = `${accountId}\u0000${f.search}`;
    if (this.remembering.has(key)) return;
    this.remembering.add(key);
    void this.withColumns(accountId, f, () => undefined)
      .catch(() => undefined)
      .finally(() => this.remembering.delete(key));
  }

  /**
   * `work` on the account's columns brought up to date (with the filter's search remembered), in that snapshot;
   * undefined when SQL answers instead — also while the account's columns are being loaded (started by the first
   * such request): no answer waits for a load.
   */
  private async withColumns<T>(accountId: string, f: ConversationListFilter, work: (db: QueryRunner, columns: StatsColumns) => T | Promise<T>): Promise<T | undefined> {
    if (this.closed || !answeredInMemory(f) || (this.unsuitedUntil.get(accountId) ?? 0) > Date.now()) return undefined;
    if (!this.held.has(accountId)) {
      void this.warm(accountId).catch(() => undefined);
      return undefined;
    }
    return this.exclusive(accountId, async () => {
      const held = this.held.get(accountId);
      if (!held) return undefined;
      const done = await this.caughtUp(accountId, held, f.search, work);
      if (!done) {
        this.held.delete(accountId);
        void this.warm(accountId).catch(() => undefined);
        return undefined;
      }
      held.usedAt = ++this.uses;
      // New rows and remembered searches grow the columns: back within the budget, this account kept if it fits alone
      // (the others are not dropped for an account that cannot stay anyway) — its least recently used searches
      // are forgotten first.
      while (held.columns.bytes > this.limits.budgetBytes && held.columns.forgetOldestSearch());
      if (held.columns.bytes > this.limits.budgetBytes) {
        this.held.delete(accountId);
        this.leaveToSql(accountId);
      } else {
        this.makeRoom(0, accountId);
      }
      return done.value;
    });
  }

  /**
   * No load starts after this, the one in progress stops at its next batch, and this resolves once it has: the
   * database pool can then close, and the database be dropped, with no statement of a background load left on it.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([this.lastLoad, ...this.loading.values(), ...this.queues.values()]);
    this.held.clear();
  }

  /** Loads the account's columns (once, however many ask) unless it is left to SQL; resolves when done. */
  warm(accountId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    let loading = this.loading.get(accountId);
    if (!loading) {
      loading = this.exclusive(accountId, async () => {
        if (this.held.has(accountId)) return;
        try {
          // One load at a time in the process: the budget then bounds the held columns and the one being loaded together.
          const load = this.lastLoad.catch(() => undefined).then(() => inSnapshot(this.dataSource, (db) => this.load(db, accountId)));
          this.lastLoad = load;
          await load;
        } catch (err) {
          if (err instanceof Closed) return;
          // Left to SQL for a while: unsuited (too small, too large, inexact costs) or failing (the error is SQL's to report).
          this.leaveToSql(accountId);
          if (!(err instanceof Unsuited)) throw err;
        }
      }).finally(() => this.loading.delete(accountId));
      this.loading.set(accountId, loading);
    }
    return loading;
  }

  /** Not looked at again for RECHECK_MS; the expired marks are swept once there are many (every small account gets one). */
  private leaveToSql(accountId: string): void {
    const now = Date.now();
    if (this.unsuitedUntil.size >= 10_000) for (const [id, until] of this.unsuitedUntil) if (until <= now) this.unsuitedUntil.delete(id);
    this.unsuitedUntil.set(accountId, now + RECHECK_MS);
  }

  private exclusive<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(accountId) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(work);
    const settled = run.catch(() => undefined);
    this.queues.set(accountId, settled);
    void settled.then(() => {
      if (this.queues.get(accountId) === settled) this.queues.delete(accountId);
    });
    return run;
  }

  /**
   * `work` on the held columns brought up to date, in that snapshot; false when they no longer match the table (or
   * cannot hold a row). A search's matches are first read in the same snapshot (the narrow side table's trigram
   * index, as the list reads it), then remembered and kept up to date with the search text of every row caught up
   * — so asking again (a console refreshing a view, paging through it) costs no second trigram recheck of every match.
   */
  private async caughtUp<T>(accountId: string, held: Held, search: string | undefined, work: (db: QueryRunner, columns: StatsColumns) => T | Promise<T>): Promise<false | { value: T }> {
    try {
      return await inSnapshot(this.dataSource, async (db) => {
        if (!(await this.catchUp(db, accountId, held))) return false;
        if (search !== undefined && !held.columns.remembers(search)) {
          const params: unknown[] = [accountId];
          const [matches] = filterPredicates({ search }, params);
          const rows: Array<{ id: string }> = await db.query(
            `SELECT s.id FROM conversations.conversation_search s WHERE s.account_id = $1 AND ${matches.onOwnTable('s')}`,
            params,
          );
          held.columns.rememberSearch(search, held.columns.rowsOf(rows.map((r) => r.id)));
        }
        return { value: await work(db, held.columns) };
      });
    } catch (err) {
      if (!(err instanceof Unsuited)) throw err;
      this.leaveToSql(accountId);
      return false;
    }
  }

  private async snapshot(db: QueryRunner, accountId: string): Promise<{ xmin: string; total: number }> {
    const [row]: Array<{ xmin: string; total: string | null }> = await db.query(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
              (SELECT conversations FROM conversations.account_totals WHERE account_id = $1)::text AS total`,
      [accountId],
    );
    return { xmin: row.xmin, total: Number(row.total ?? 0) };
  }

  /** Applies the rows written since the held snapshot; false when the columns no longer match the table. */
  private async catchUp(db: QueryRunner, accountId: string, held: Held): Promise<boolean> {
    const { xmin, total } = await this.snapshot(db, accountId);
    // The search text (a whole transcript, possibly) travels only when a remembered search needs it.
    const text = held.columns.remembersSearches;
    const changed: Array<RawRow & { search_text?: string }> = await db.query(
      `SELECT ${COLUMNS}${text ? ', search_text' : ''} FROM conversations.conversations WHERE account_id = $1 AND changed_xid >= $2::xid8`,
      [accountId, held.xmin],
    );
    for (const raw of changed) {
      const row = statsRow(raw);
      if (!row) throw new Unsuited();
      held.columns.put(row, raw.search_text);
    }
    held.xmin = xmin;
    return held.columns.size === total;
  }

  private async load(db: QueryRunner, accountId: string): Promise<void> {
    const { xmin, total } = await this.snapshot(db, accountId);
    // Not loaded when its columns could not fit even at their smallest.
    if (total < this.limits.minRows || total * BYTES_PER_ROW_AT_LEAST > this.limits.budgetBytes) throw new Unsuited();
    // Room first, for what a row usually takes (the load's columns and the held ones then stay within the budget
    // together), then the columns sized once.
    this.makeRoom(Math.min(total * BYTES_PER_ROW, this.limits.budgetBytes));
    const columns = new StatsColumns(total, this.limits.rollupMinRows ?? ROLLUP_MIN_ROWS);
    // In start-time order (keyset batches on the start-time index): rows that start close together are then close
    // together in the columns, so a pass over a search's matches in start-time order (a list page) reads memory
    // almost in sequence. Rows added later are appended, and calls mostly arrive in the order they start.
    const batchSize = this.limits.loadBatch ?? LOAD_BATCH;
    for (let after: [string, string] | undefined; ; ) {
      if (this.closed) throw new Closed();
      const batch: RawRow[] = await db.query(
        `SELECT ${COLUMNS} FROM conversations.conversations
          WHERE account_id = $1 ${after ? 'AND (start_time, id) > ($2::timestamptz, $3)' : ''} ORDER BY start_time, id LIMIT ${batchSize}`,
        after ? [accountId, ...after] : [accountId],
      );
      for (const raw of batch) {
        const row = statsRow(raw);
        if (!row) throw new Unsuited();
        columns.put(row);
      }
      if (batch.length < batchSize) break;
      const last = batch[batch.length - 1];
      after = [isoOfMicros(Number(last.start_us)), last.id];
    }
    // Only if the kept total were wrong (or two ids shared a hash, row-index.ts): SQL, which counts, answers instead.
    if (columns.size !== total || columns.bytes > this.limits.budgetBytes) throw new Unsuited();
    this.makeRoom(columns.bytes);
    this.held.set(accountId, { columns, xmin, usedAt: ++this.uses });
  }

  /** Drops the least recently used accounts (but `keep`) until `bytes` more fit in the budget. */
  private makeRoom(bytes: number, keep?: string): void {
    let held = this.bytesHeld;
    for (const accountId of this.accountsHeld) {
      if (held + bytes <= this.limits.budgetBytes) return;
      if (accountId === keep) continue;
      held -= this.held.get(accountId)!.columns.bytes;
      this.held.delete(accountId);
    }
  }
}
