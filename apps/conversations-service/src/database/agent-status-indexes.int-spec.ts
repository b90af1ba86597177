import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from './conversations-database.js';
import { AgentStatusCoveringIndex1767500000000 } from './migrations/1767500000000-agent-status-covering-index.js';
import { AgentStatusSentimentIndex1767600000000 } from './migrations/1767600000000-agent-status-sentiment-index.js';

/**
 * The agent-and-status index with the sentiment rank, and the agent, status and sentiment index, built without a
 * transaction on a partitioned table holding rows (real PostgreSQL).
 */
describe('migrations: the agent-and-status indexes', () => {
  let db: TestDatabase;
  const open: DataSource[] = [];
  let after: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('agentstatusidx');
    const before = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations.slice(0, conversationsMigrations.indexOf(AgentStatusCoveringIndex1767500000000)) });
    open.push(before);
    await before.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, sentiment, sentiment_rank, topics, topics_lower, duration, detail, stream_version)
       SELECT 'conv_' || n, 'acct_' || (n % 7), 'agt_' || (n % 3), (ARRAY['completed', 'failed'])[n % 2 + 1], timestamptz '2025-03-01' + n * interval '1 minute',
              (ARRAY['negative', 'neutral', 'positive'])[n % 3 + 1], n % 3, '{}', '{}', 60, '{}', 1
         FROM generate_series(1, 3000) n`,
    );
    after = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations });
    open.push(after);
    await after.query('VACUUM ANALYZE conversations.conversations');
  }, 120_000);

  afterAll(async () => {
    for (const dataSource of open) await dataSource.destroy();
    await db?.drop();
  });

  const indexes = async (dataSource: DataSource) =>
    (await dataSource.query(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
        WHERE t.relname = 'conversations' AND t.relnamespace = 'conversations'::regnamespace AND c.relname LIKE 'conversations_account_agent_status%' ORDER BY c.relname`,
    )) as Array<{ name: string; valid: boolean }>;

  const BOTH = [
    { name: 'conversations_account_agent_status_cover_idx', valid: true },
    { name: 'conversations_account_agent_status_sentiment_idx', valid: true },
  ];

  it('leaves both valid on the partitioned table and on each of its partitions (the one without the sentiment rank replaced)', async () => {
    expect(await indexes(after)).toEqual(BOTH);
    for (const index of BOTH) {
      const [{ partitions, attached }] = await after.query(
        `SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'conversations.conversations'::regclass)::int AS partitions,
                (SELECT count(*) FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
                  WHERE i.inhparent = $1::regclass AND x.indisvalid)::int AS attached`,
        [`conversations.${index.name}`],
      );
      expect(partitions).toBeGreaterThan(1);
      expect(attached).toBe(partitions);
    }
  });

  const plan = (sql: string) => after.transaction(async (m) => {
    await m.query('SET LOCAL enable_seqscan = off');
    await m.query('SET LOCAL enable_bitmapscan = off');
    return JSON.stringify(await m.query(`EXPLAIN (FORMAT JSON) ${sql}`));
  });
  const AGENT_STATUS_MONTH = `c.account_id = 'acct_1' AND c.agent_id = 'agt_1' AND c.status = 'completed' AND c.start_time >= '2025-03-01' AND c.start_time < '2025-03-02'`;

  it('counts an agent, a status, a sentiment and a month over exactly their entries, and reads the page in order from the same index', async () => {
    const count = await plan(`SELECT count(*) FROM conversations.conversations c WHERE ${AGENT_STATUS_MONTH} AND c.sentiment_rank = 2`);
    expect(count).toContain('"Node Type":"Index Only Scan"');
    expect(count).toContain('agent_status_sentiment_idx');
    // The sentiment is a condition of the index range, not a filter dropping the other sentiments' entries.
    expect(count).not.toContain('"Filter"');
    const page = await plan(`SELECT c.id FROM conversations.conversations c WHERE ${AGENT_STATUS_MONTH} AND c.sentiment_rank = 2 ORDER BY c.start_time DESC, c.id DESC LIMIT 25`);
    expect(page).toContain('agent_status_sentiment_idx');
    expect(page).not.toContain('"Node Type":"Sort"');
  });

  it('counts an agent, a status and a month (any sentiment) from the agent-and-status index alone', async () => {
    const count = await plan(`SELECT count(*) FROM conversations.conversations c WHERE ${AGENT_STATUS_MONTH}`);
    expect(count).toContain('"Node Type":"Index Only Scan"');
    expect(count).toContain('agent_status_cover_idx');
  });

  it('is undone: the agent, status and sentiment index is gone', async () => {
    const runner = after.createQueryRunner();
    try {
      await new AgentStatusSentimentIndex1767600000000().down(runner);
      expect(await indexes(after)).toEqual([BOTH[0]]);
      await new AgentStatusSentimentIndex1767600000000().up(runner);
      expect(await indexes(after)).toEqual(BOTH);
    } finally {
      await runner.release();
    }
  });

  it('is undone: the index without the sentiment rank is back, valid', async () => {
    const runner = after.createQueryRunner();
    try {
      await new AgentStatusCoveringIndex1767500000000().down(runner);
      expect(await indexes(after)).toEqual([{ name: 'conversations_account_agent_status_idx', valid: true }, BOTH[1]]);
      // A build interrupted on one partition (its index left invalid, as a cancelled CREATE INDEX CONCURRENTLY leaves
      // it) is dropped and built again when the migration runs again.
      const [{ partition }] = await after.query(
        `SELECT c.relname AS partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'conversations.conversations'::regclass ORDER BY c.relname LIMIT 1`,
      );
      await runner.query(`CREATE INDEX ${partition}_account_agent_status_cover_idx ON conversations.${partition} (account_id)`);
      await runner.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'conversations.${partition}_account_agent_status_cover_idx'::regclass`);
      await new AgentStatusCoveringIndex1767500000000().up(runner);
      expect(await indexes(after)).toEqual(BOTH);
      const [{ definition }] = await after.query(`SELECT pg_get_indexdef('conversations.${partition}_account_agent_status_cover_idx'::regclass) AS definition`);
      expect(definition).toContain('INCLUDE (sentiment_rank)');
    } finally {
      await runner.release();
    }
  });
});
