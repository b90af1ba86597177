import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CONVERSATION_FILTER_PARAMETERS, CONVERSATION_STATUSES, conversationMatches } from '@voice/contracts';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { readStats } from './conversation-stats.store.js';
import { DAY_US } from './day-rollups.js';
import { costMicros, instantMicros } from './stats-columns.js';
import { StatsMemory } from './stats-memory.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../database/conversations-database.js';
import type { ConversationListFilter } from '../list-conversations/list-conversations.params.js';
import { buildListSql } from '../list-conversations/list-conversations.store.js';
import { isoOfMicros } from '../conversation/conversation.views.js';
import { insertReadModelRows, type ReadModelRow } from '../testing/read-model-rows.js';

// Real PostgreSQL, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(240_000);

const T0_US = Date.parse('2025-03-01T00:00:00Z') * 1000;
const AGENTS = ['agt_a', 'agt_b'];
const TEXTS = ['refund issued', 'a%b off', 'under_score', 'back\\slash', ''];

type Row = ReadModelRow;

const row = fc.record({
  agent_id: fc.constantFrom(...AGENTS),
  caller_number: fc.constantFrom(null, '+14155550100', '+14155550101'),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  start_offset_us: fc.integer({ min: 0, max: 40 }),
  duration: fc.integer({ min: 0, max: 8 }),
  sentiment: fc.constantFrom(null, 'positive', 'neutral', 'negative'),
  outcome: fc.constantFrom(null, 'resolved', 'escalated'),
  topics: fc.uniqueArray(fc.constantFrom('billing', 'sales', 'é'), { maxLength: 2 }),
  has_recording: fc.boolean(),
  has_transcript: fc.boolean(),
  search_text: fc.constantFrom(...TEXTS),
  cost_micros: fc.option(fc.integer({ min: 0, max: 8 }).map((n) => n * 250_000 + (n % 3)), { nil: null }),
});

/** A UTC instant as the list's parser writes it (nine fractional digits): some between two microseconds, to be rounded half to even. */
const instant = fc.tuple(fc.integer({ min: -1, max: 41 }), fc.constantFrom(0, 499, 500, 501)).map(([us, nanos]) => {
  const at = T0_US + us;
  return `${new Date(Math.floor(at / 1000)).toISOString().slice(0, 19)}.${String(at % 1_000_000).padStart(6, '0')}${String(nanos).padStart(3, '0')}Z`;
});
/** A cost as written: whole millionths, with or without trailing zeros. */
const cost = fc.tuple(fc.integer({ min: 0, max: 2_000_002 }), fc.boolean()).map(([micros, padded]) => {
  const text = `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
  return padded ? `${text}000` : text.replace(/\.?0+$/, '') || '0';
});
const filterValues = fc.record({
  agent_id: fc.constantFrom(...AGENTS, 'agt_none'),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  sentiment: fc.constantFrom('positive' as const, 'neutral' as const, 'negative' as const),
  outcome: fc.constantFrom('resolved', 'none_such'),
  caller: fc.constantFrom('+14155550100', '+14155550199'),
  min_duration: fc.integer({ min: 0, max: 8 }),
  max_duration: fc.integer({ min: 0, max: 8 }),
  min_cost: cost,
  max_cost: cost,
  start_date: instant,
  end_date: instant,
  has_recording: fc.boolean(),
  has_transcript: fc.boolean(),
  search: fc.constantFrom('refund', '%', '_', '\\', 'a%b', 'nothing'),
  topic: fc.constantFrom('billing', 'é', 'none_such'),
});
/** A few filters at once (more select nothing from a few dozen rows). */
const filter = fc.tuple(filterValues, fc.subarray([...CONVERSATION_FILTER_PARAMETERS], { maxLength: 3 })).map(([values, given]): ConversationListFilter => ({
  page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc', ...Object.fromEntries(given.map((name) => [name, values[name]])),
}));

/** The rows a filter selects by the contracts' predicate over each conversation (times and costs compared as the numbers they are). */
function matching(rows: Row[], f: ConversationListFilter): string[] {
  const asNumbers = {
    ...f,
    start_date: f.start_date === undefined ? undefined : instantMicros(f.start_date),
    end_date: f.end_date === undefined ? undefined : instantMicros(f.end_date),
    min_cost: f.min_cost === undefined ? undefined : costMicros(f.min_cost),
    max_cost: f.max_cost === undefined ? undefined : costMicros(f.max_cost),
  };
  return rows.filter((r) => conversationMatches({ ...r, start_time: T0_US + r.start_offset_us, cost: r.cost_micros }, asNumbers)).map((r) => r.id).sort();
}

describe('the list filters compiled to SQL and to the stats columns agree (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('filters');
    dataSource = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 4 });
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const insert = (account: string, rows: Row[]) => insertReadModelRows(dataSource, account, rows, T0_US);

  it('on random rows and filters: the list’s WHERE, its side-table form, the contracts’ predicate, and the stats from SQL and from memory select the same conversations', async () => {
    let inMemory = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 50 }), fc.array(filter, { minLength: 1, maxLength: 6 }), async (generated, filters) => {
        const account = `acc_${randomUUID()}`;
        const rows = generated.map((r, i) => ({ ...r, id: `${account}-${String(i).padStart(3, '0')}` }));
        await insert(account, rows);
        // Loaded a few rows a statement: the load's batches split rows of one start.
        const memory = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30, loadBatch: 4 });
        await memory.warm(account);
        expect(memory.rowsHeld).toBe(rows.length);
        // The same columns with day rollups, and filters of whole UTC days they answer (the rows' day, alone or with one status or topic).
        const rolledUp = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30, rollupMinRows: 0 });
        await rolledUp.warm(account);
        const day = Math.floor(T0_US / DAY_US) * DAY_US;
        const wholeDay = { page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc', start_date: isoOfMicros(day), end_date: isoOfMicros(day + DAY_US - 1) } as const;
        for (const f of [...filters, wholeDay, { ...wholeDay, status: rows[0]?.status ?? 'completed' }, { ...wholeDay, topic: 'billing' }, { ...wholeDay, end_date: undefined },
          { ...wholeDay, start_date: isoOfMicros(day - DAY_US), end_date: isoOfMicros(day - 1) }] as ConversationListFilter[]) {
          const sql = buildListSql(account, f);
          const ids = async (text: string) => ((await dataSource.query(text, sql.params)) as Array<{ id: string }>).map((r) => r.id).sort();
          const listed = await ids(`SELECT c.id FROM conversations.conversations c WHERE ${sql.where}`);
          expect(listed).toEqual(matching(rows, f));
          if (sql.narrow) expect(await ids(`SELECT ${sql.narrow.id} AS id FROM ${sql.narrow.from} WHERE ${sql.narrow.where}`)).toEqual(listed);

          const bySql = await readStats(dataSource, account, f, () => undefined);
          const fromMemory = await memory.read(account, f, () => undefined);
          expect(bySql.summary.total).toBe(listed.length);
          if (fromMemory) {
            inMemory++;
            expect(fromMemory.summary).toEqual(bySql.summary);
            expect((await rolledUp.read(account, f, () => undefined))?.summary).toEqual(bySql.summary);
          }
        }
      }),
      { numRuns: 60 },
    );
    // Most filters are answered from memory (caller and cost are left to SQL).
    expect(inMemory).toBeGreaterThan(30);
  });

  it('the columns of every account together stay within the memory budget: least recently used accounts make room, one too large for it is left to SQL', async () => {
    const sample = fc.sample(row, { numRuns: 2_000, seed: 7 });
    const all: ConversationListFilter = { page: 1, per_page: 25, sort_by: 'start_time', sort_order: 'desc' };
    const refund: ConversationListFilter = { ...all, search: 'refund' };
    const accounts = ['a', 'b', 'c', 'huge'].map((name) => `acc_budget_${name}_${randomUUID()}`);
    for (const [i, account] of accounts.entries()) {
      const rows = i === 3 ? [...sample, ...sample, ...sample] : sample;
      await insert(account, rows.map((r, n) => ({ ...r, id: `${account}-${String(n).padStart(5, '0')}` })));
    }
    // What one account's columns take, measured by a process with room for everything.
    const roomy = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30 });
    await roomy.warm(accounts[0]);
    const perAccount = roomy.bytesHeld;
    expect(perAccount).toBeGreaterThan(2_000 * 40);
    expect(perAccount).toBeLessThan(2_000 * 160);

    // Room for two of the small accounts, not three, and never for the huge one (three times as many rows).
    const budgetBytes = Math.floor(perAccount * 2.5);
    const memory = new StatsMemory(dataSource, { minRows: 0, budgetBytes });
    const asked: string[] = [];
    const ask = async (account: string) => {
      asked.push(account);
      const bySql = await readStats(dataSource, account, all, () => undefined);
      const fromMemory = await memory.read(account, all, () => undefined);
      if (fromMemory) expect(fromMemory.summary).toEqual(bySql.summary);
      expect(memory.bytesHeld).toBeLessThanOrEqual(budgetBytes);
      return fromMemory !== undefined;
    };
    for (const account of accounts.slice(0, 3)) {
      await memory.warm(account);
      expect(memory.bytesHeld).toBeLessThanOrEqual(budgetBytes);
    }
    // a was loaded first and not used since: c's load dropped it.
    expect(memory.accountsHeld).toEqual([accounts[1], accounts[2]]);
    expect(await ask(accounts[2])).toBe(true);
    expect(await ask(accounts[1])).toBe(true);
    // Asking for a again loads it (SQL answers meanwhile) and drops the least recently used of b and c: c.
    expect(await ask(accounts[0])).toBe(false);
    await memory.warm(accounts[0]);
    expect(memory.accountsHeld).toEqual([accounts[1], accounts[0]]);
    expect(await ask(accounts[0])).toBe(true);

    // Too large for the budget on its own: never loaded, the held accounts kept, SQL answers (exactly, as ever).
    await memory.warm(accounts[3]);
    expect(memory.accountsHeld).toEqual([accounts[1], accounts[0]]);
    expect(await ask(accounts[3])).toBe(false);
    expect((await readStats(dataSource, accounts[3], all, () => undefined)).summary.total).toBe(6_000);
    expect(asked.length).toBe(5);

    // Held columns that grow past the budget (a remembered search: a byte per conversation) forget their searches
    // after the answer; columns past it without any are let go.
    const tight = new StatsMemory(dataSource, { minRows: 0, budgetBytes: perAccount + 100 });
    await tight.warm(accounts[0]);
    expect(tight.accountsHeld).toEqual([accounts[0]]);
    const searched = await tight.read(accounts[0], refund, () => undefined);
    expect(searched?.summary).toEqual((await readStats(dataSource, accounts[0], refund, () => undefined)).summary);
    expect(tight.accountsHeld).toEqual([accounts[0]]);
    expect(tight.bytesHeld).toBe(perAccount);

    // Grown past the room for two but still within the budget alone: the other account makes room, this one stays.
    const tiny = `acc_budget_tiny_${randomUUID()}`;
    await insert(tiny, sample.slice(0, 10).map((r, n) => ({ ...r, id: `${tiny}-${n}` })));
    const sizing = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30 });
    await sizing.warm(tiny);
    const twoFit = new StatsMemory(dataSource, { minRows: 0, budgetBytes: perAccount + sizing.bytesHeld + 100 });
    await twoFit.warm(accounts[0]);
    await twoFit.warm(tiny);
    expect(twoFit.accountsHeld).toEqual([accounts[0], tiny]);
    expect((await twoFit.read(accounts[0], refund, () => undefined))?.summary.total).toBe(searched?.summary.total);
    expect(twoFit.accountsHeld).toEqual([accounts[0]]);
    expect(twoFit.bytesHeld).toBeLessThanOrEqual(perAccount + sizing.bytesHeld + 100);

    // Columns past the budget with no search left to forget (a new row grew them) are let go; SQL answers.
    const exact = new StatsMemory(dataSource, { minRows: 0, budgetBytes: perAccount });
    await exact.warm(accounts[0]);
    expect(exact.accountsHeld).toEqual([accounts[0]]);
    await dataSource.transaction(async (m) => {
      await m.query(
        `INSERT INTO conversations.conversations
         SELECT (jsonb_populate_record(c, to_jsonb(c) || jsonb_build_object('id', c.id || '-copy', 'changed_xid', pg_current_xact_id()::text))).*
           FROM conversations.conversations c WHERE c.account_id = $1 AND c.id = $2`,
        [accounts[0], `${accounts[0]}-00000`],
      );
      await m.query(`UPDATE conversations.account_totals SET conversations = conversations + 1 WHERE account_id = $1`, [accounts[0]]);
    });
    expect(await exact.read(accounts[0], all, () => undefined)).toBeDefined();
    expect(exact.accountsHeld).toEqual([]);
    expect(await exact.read(accounts[0], all, () => undefined)).toBeUndefined();
  });
});
