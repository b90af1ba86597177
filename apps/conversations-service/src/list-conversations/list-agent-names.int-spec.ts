import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource, QueryRunner } from 'typeorm';
import { DEFAULT_TUNING } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../database/conversations-database.js';
import { ListConversationsHandler } from './list-conversations.handler.js';
import { ListConversations } from './list-conversations.query.js';

// Real PostgreSQL, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(120_000);

const ACCOUNT = `acc_${randomUUID()}`;
const OTHER_ACCOUNTS = 400;
const AGENTS_PER_ACCOUNT = 20;

/**
 * A page of a list names each row's agent. What that costs must not grow with the agents of every other account:
 * with thousands of them, the page's statements read the agents by primary key, never the whole table.
 */
describe('list pages: agent names read by key, whatever the number of agents of other accounts', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const sent: Array<{ sql: string; params: unknown[] }> = [];

  beforeAll(async () => {
    db = await createTestDatabase('agent_names');
    dataSource = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 2 });
    await dataSource.query(
      `INSERT INTO conversations.agents (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled, status, version)
       SELECT 'agt_other_' || a || '_' || i, 'acc_other_' || a, 'Other ' || a || '/' || i, 'platform_a', true, true, 'active', 1
         FROM generate_series(1, $1::int) a, generate_series(1, $2::int) i`,
      [OTHER_ACCOUNTS, AGENTS_PER_ACCOUNT],
    );
    await dataSource.query(
      `INSERT INTO conversations.agents (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled, status, version)
       SELECT $1 || i, $2, 'Desk ' || i, 'platform_b', true, true, 'active', 1 FROM generate_series(0, 2) i`,
      [`agt_${ACCOUNT}_`, ACCOUNT],
    );
    await dataSource.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, duration, topics, topics_lower, has_recording,
         has_transcript, search_text, detail, stream_version)
       SELECT 'call-' || lpad(n::text, 3, '0'), $2, $1 || (n % 3), 'completed', timestamptz '2025-03-01' + n * interval '1 minute', 60,
              '{}', '{}', false, true, 'refund asked ' || n, '{}'::jsonb, 1
         FROM generate_series(1, 60) n`,
      [`agt_${ACCOUNT}_`, ACCOUNT],
    );
    await dataSource.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
                            SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations`);
    await dataSource.query(`INSERT INTO conversations.account_totals (account_id, conversations) VALUES ($1, 60)`, [ACCOUNT]);
    for (const table of ['agents', 'conversations', 'conversation_search']) await dataSource.query(`VACUUM ANALYZE conversations.${table}`);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** The handler on the service's own data source, the statements it sends recorded. */
  function handler(deepPageOffset: number): ListConversationsHandler {
    const record = (sql: string, params?: unknown[]) => sent.push({ sql, params: params ?? [] });
    const recording = {
      query: (sql: string, params?: unknown[]) => (record(sql, params), dataSource.query(sql, params)),
      createQueryRunner: () => {
        const runner: QueryRunner = dataSource.createQueryRunner();
        const query = runner.query.bind(runner) as (sql: string, params?: unknown[]) => Promise<unknown>;
        runner.query = ((sql: string, params?: unknown[]) => (record(sql, params), query(sql, params))) as QueryRunner['query'];
        return runner;
      },
    } as unknown as DataSource;
    return new ListConversationsHandler({ dataSource: recording, tuning: { ...DEFAULT_TUNING, deepPageOffset } });
  }

  it.each([
    ['a first page', {}, DEFAULT_TUNING.deepPageOffset],
    ['a deep page', { page: '2' }, 0],
    ['a search page read with its total in one pass', { search: 'refund', page: '2' }, 0],
  ])('%s names every agent and reads no agent of another account', async (_case, query, deepPageOffset) => {
    sent.length = 0;
    const page = await handler(deepPageOffset).execute(new ListConversations(ACCOUNT, query));
    expect(page.items.length).toBe(25);
    for (const item of page.items) expect(item.agent_name).toBe(`Desk ${item.agent_id.slice(-1)}`);

    const pageStatements = sent.filter((s) => /agent_name/.test(s.sql));
    expect(pageStatements.length).toBeGreaterThan(0);
    // Planned as a planner would that misjudges how many rows the page holds (at ten million conversations one chose to
    // hash all 20,020 agents for a page of 25): with only hash joins left to it, the names must still be read by key.
    for (const { sql, params } of pageStatements) {
      const plan = await dataSource.transaction(async (m) => {
        await m.query('SET LOCAL enable_nestloop = off');
        await m.query('SET LOCAL enable_mergejoin = off');
        const lines = (await m.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)) as Array<{ 'QUERY PLAN': string }>;
        return lines.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).not.toMatch(/Seq Scan on agents/);
      expect(plan).toMatch(/Index Scan using agents_pkey on agents/);
    }
  });
});
