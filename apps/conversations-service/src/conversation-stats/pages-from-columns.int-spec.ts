import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CONVERSATION_STATUSES, type RawQuery } from '@voice/contracts';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { DEFAULT_TUNING } from '../config/service-context.js';
import { isoOfMicros } from '../conversation/conversation.views.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../database/conversations-database.js';
import { ListConversationsHandler } from '../list-conversations/list-conversations.handler.js';
import { ListConversations } from '../list-conversations/list-conversations.query.js';
import type { PagesInMemory } from '../list-conversations/pages-in-memory.js';
import { insertReadModelRows, type ReadModelRow } from '../testing/read-model-rows.js';
import { StatsMemory } from './stats-memory.js';

// Real PostgreSQL, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(300_000);

const T0_US = Date.parse('2025-03-01T00:00:00Z') * 1000;
const TEXTS = ['refund issued', 'no refund', 'booked', '50% off', ''];

const row = fc.record({
  agent_id: fc.constantFrom('agt_a', 'agt_b'),
  caller_number: fc.constant(null),
  status: fc.constantFrom(...CONVERSATION_STATUSES),
  // A few microseconds apart: many rows share a start, and a key, which only PostgreSQL (by id) orders.
  start_offset_us: fc.integer({ min: 0, max: 15 }),
  duration: fc.integer({ min: 0, max: 4 }),
  sentiment: fc.constantFrom(null, 'positive', 'negative'),
  outcome: fc.constant(null),
  topics: fc.uniqueArray(fc.constantFrom('billing', 'sales'), { maxLength: 2 }),
  has_recording: fc.boolean(),
  has_transcript: fc.constant(true),
  search_text: fc.constantFrom(...TEXTS),
  cost_micros: fc.constant(null),
});

/** Searches with the other filters the columns hold, in both orders the columns page. */
const query = fc.record({
  search: fc.constantFrom('refund', '%', 'off', 'nothing'),
  others: fc.constantFrom<RawQuery>({}, { status: 'completed' }, { agent_id: 'agt_b' }, { topic: 'billing' }, { has_recording: 'true' }, { min_duration: '2' }),
  sort_by: fc.constantFrom('start_time', 'duration'),
  sort_order: fc.constantFrom('asc', 'desc'),
  per_page: fc.constantFrom('1', '3', '7'),
});

const idOf = (i: number) => `conv_${String((i * 37) % 101).padStart(3, '0')}_${i}`;

/**
 * A new account holding the rows, its columns loaded a few rows a statement (the load's batches split rows of one
 * start), and its list answered both ways: from the columns where they page it (counted), and by SQL alone.
 */
async function listedBothWays(dataSource: DataSource, generated: Array<Omit<ReadModelRow, 'id'>>) {
  const account = `acc_${randomUUID()}`;
  await insertReadModelRows(dataSource, account, generated.map((r, i) => ({ ...r, id: idOf(i) })), T0_US);
  const memory = new StatsMemory(dataSource, { minRows: 0, budgetBytes: 2 ** 30, loadBatch: 3 });
  await memory.warm(account);
  const paged = { fromMemory: 0 };
  const counting: PagesInMemory = {
    withPageKeys: async (...args) => {
      const answer = await memory.withPageKeys(...args);
      if (answer !== undefined) paged.fromMemory++;
      return answer;
    },
  };
  const inMemory = new ListConversationsHandler({ dataSource, tuning: DEFAULT_TUNING }, counting);
  const bySql = new ListConversationsHandler({ dataSource, tuning: DEFAULT_TUNING });
  return { account, memory, paged, inMemory, bySql };
}

describe('a substring search paged from the columns in memory reads the pages SQL reads (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('column_pages');
    dataSource = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 4 });
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('on random rows, before and after some change (start, text, status): every page and total, in both orders', async () => {
    let pagesCompared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.array(query, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ at: fc.nat(), start_offset_us: fc.integer({ min: 0, max: 15 }), search_text: fc.constantFrom(...TEXTS), status: fc.constantFrom(...CONVERSATION_STATUSES) }), { maxLength: 6 }),
        async (generated, queries, changes) => {
          const { account, memory, paged, inMemory, bySql } = await listedBothWays(dataSource, generated);
          const asked = new Set<string>();
          const compareEveryPage = async () => {
            for (const q of queries) {
              const raw: RawQuery = { search: q.search, ...q.others, sort_by: q.sort_by, sort_order: q.sort_order, per_page: q.per_page };
              const { total } = await bySql.execute(new ListConversations(account, raw));
              // Asked the first time, a search is answered by SQL and remembered in the background.
              const firstAsked = paged.fromMemory;
              expect(await inMemory.execute(new ListConversations(account, raw))).toEqual(await bySql.execute(new ListConversations(account, raw)));
              await memory.idle(account);
              expect(paged.fromMemory - firstAsked).toBe(asked.has(q.search) ? 1 : 0);
              asked.add(q.search);
              // From then on every page is paged from memory.
              const pagedBefore = paged.fromMemory;
              const pages = Math.ceil(total / Number(q.per_page)) + 1;
              for (let page = 1; page <= pages; page++) {
                const expected = await bySql.execute(new ListConversations(account, { ...raw, page: String(page) }));
                const answered = await inMemory.execute(new ListConversations(account, { ...raw, page: String(page) }));
                expect(answered).toEqual(expected);
              }
              expect(paged.fromMemory - pagedBefore).toBe(pages);
              pagesCompared += pages;
            }
          };
          await compareEveryPage();
          // Changed rows (the columns catch up with them, the search's matches and order included).
          for (const change of changes) {
            const id = idOf(change.at % generated.length);
            const start = isoOfMicros(T0_US + change.start_offset_us);
            await dataSource.transaction(async (m) => {
              await m.query(`UPDATE conversations.conversations SET start_time = $3, search_text = $4, status = $5 WHERE account_id = $1 AND id = $2`,
                [account, id, start, change.search_text, change.status]);
              await m.query(`UPDATE conversations.conversation_search SET start_time = $3, search_text = $4, status = $5 WHERE account_id = $1 AND id = $2`,
                [account, id, start, change.search_text, change.status]);
            });
          }
          await compareEveryPage();
          await memory.close();
        },
      ),
      { numRuns: 25 },
    );
    expect(pagesCompared).toBeGreaterThan(100);
  });
});
