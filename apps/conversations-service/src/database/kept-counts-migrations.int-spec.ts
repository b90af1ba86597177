import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { FACET_COUNTS_SQL } from '../conversation/conversation-counts.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from './conversations-database.js';
import { ConversationDayCounts1767000000000 } from './migrations/1767000000000-conversation-day-counts.js';
import { StatusTopicCounts1767100000000 } from './migrations/1767100000000-status-topic-counts.js';
import { DurationCounts1767200000000 } from './migrations/1767200000000-duration-counts.js';
import { TopicDayCounts1767300000000 } from './migrations/1767300000000-topic-day-counts.js';
import { HourCounts1767400000000 } from './migrations/1767400000000-hour-counts.js';

/** The backfills of the counts kept per day (also per topic) and hour, per status and topic and per duration, on a schema holding conversations written before them (real PostgreSQL). */
describe('migrations: day counts, status and topic counts, duration counts, topic day counts', () => {
  let db: TestDatabase;
  const open: DataSource[] = [];
  let after: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('convdaycounts');
    const before = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations.slice(0, conversationsMigrations.indexOf(ConversationDayCounts1767000000000)) });
    open.push(before);
    // Two accounts over three days, the first call of each day at its first microsecond and the last at its last.
    await before.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, has_recording, topics, topics_lower, duration, detail, stream_version)
       SELECT 'conv_' || n, 'acct_' || (n % 2), 'agt_1', (ARRAY['completed', 'failed', 'in_progress'])[n % 3 + 1],
              timestamptz '2025-03-01T00:00:00Z' + (n - 1) * interval '1 hour' - CASE WHEN n % 24 = 0 THEN interval '1 microsecond' ELSE interval '0' END,
              n % 4 = 0, ARRAY['Billing', 'billing', 'Refund'], CASE WHEN n % 5 = 0 THEN ARRAY['billing', 'billing'] ELSE ARRAY['billing', 'refund'] END, n % 7 * 30, '{}', 1
         FROM generate_series(1, 72) n`,
    );
    after = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations });
    open.push(after);
  }, 120_000);

  afterAll(async () => {
    for (const dataSource of open) await dataSource.destroy();
    await db?.drop();
  });

  it('counts every conversation already there under its UTC day, in all, per status and per has_recording', async () => {
    const days = await after.query(
      `SELECT value AS day, conversations::int AS n FROM conversations.conversation_counts WHERE account_id = 'acct_0' AND facet = 'day' ORDER BY value`);
    expect(days).toEqual([
      // acct_0 holds the even n: 2..24 on 03-01 (24 at 23:59:59.999999 of the 1st), 26..48 on 03-02, 50..72 on 03-03.
      { day: '2025-03-01', n: 12 }, { day: '2025-03-02', n: 12 }, { day: '2025-03-03', n: 12 },
    ]);
    const kept = await after.query(
      `SELECT account_id, facet, value, conversations::int AS n FROM conversations.conversation_counts WHERE facet LIKE 'day%' ORDER BY 1, 2, 3`);
    const derived = await after.query(
      `SELECT account_id, facet, value, conversations::int AS n FROM (${FACET_COUNTS_SQL}) f WHERE facet LIKE 'day%' ORDER BY 1, 2, 3`);
    expect(kept).toEqual(derived);
    expect(kept.map((k: { facet: string }) => k.facet)).toEqual(expect.arrayContaining(['day:status:failed', 'day:has_recording:true', 'day:has_recording:false']));
  });

  it('counts every conversation already there under each of its distinct topics with its status', async () => {
    const kept = await after.query(
      `SELECT account_id, value, conversations::int AS n FROM conversations.conversation_counts WHERE facet = 'status:topic' ORDER BY 1, 2`);
    const derived = await after.query(
      `SELECT account_id, value, conversations::int AS n FROM (${FACET_COUNTS_SQL}) f WHERE facet = 'status:topic' ORDER BY 1, 2`);
    expect(kept).toEqual(derived);
    // acct_0 holds the even n, completed when n % 3 = 0: n = 6, 12, …, 72, 12 conversations, each counted once under billing.
    expect(kept).toContainEqual({ account_id: 'acct_0', value: 'completed:billing', n: 12 });
    expect(await after.query(`SELECT count(*)::int AS n FROM (${FACET_COUNTS_SQL}) f WHERE facet = 'topic' AND value = 'billing'`)).toEqual([{ n: 2 }]);
  });

  it('counts every conversation already there under its UTC day per distinct topic, and per topic with its status', async () => {
    const days = await after.query(
      `SELECT facet, value AS day, conversations::int AS n FROM conversations.conversation_counts
        WHERE account_id = 'acct_0' AND facet IN ('day:topic:billing', 'day:topic:refund', 'day:status:completed:topic:billing') ORDER BY 1, 2`);
    // acct_0: the even n, 12 a day; all hold billing once; refund unless n % 5 = 0 (10, 20 / 30, 40 / 50, 60, 70);
    // completed when n % 3 = 0 (6, 12, 18, 24 / 30, 36, 42, 48 / 54, 60, 66, 72).
    expect(days).toEqual([
      { facet: 'day:status:completed:topic:billing', day: '2025-03-01', n: 4 },
      { facet: 'day:status:completed:topic:billing', day: '2025-03-02', n: 4 },
      { facet: 'day:status:completed:topic:billing', day: '2025-03-03', n: 4 },
      { facet: 'day:topic:billing', day: '2025-03-01', n: 12 }, { facet: 'day:topic:billing', day: '2025-03-02', n: 12 }, { facet: 'day:topic:billing', day: '2025-03-03', n: 12 },
      { facet: 'day:topic:refund', day: '2025-03-01', n: 10 }, { facet: 'day:topic:refund', day: '2025-03-02', n: 10 }, { facet: 'day:topic:refund', day: '2025-03-03', n: 9 },
    ]);
  });

  it('counts every conversation already there under its UTC hour, per day', async () => {
    const kept = await after.query(
      `SELECT account_id, facet, value, conversations::int AS n FROM conversations.conversation_counts WHERE facet LIKE 'hour:%' ORDER BY 1, 2, 3`);
    expect(kept).toEqual(await after.query(
      `SELECT account_id, facet, value, conversations::int AS n FROM (${FACET_COUNTS_SQL}) f WHERE facet LIKE 'hour:%' ORDER BY 1, 2, 3`));
    // acct_0 holds the even n; n starts at 03-01 00:00 + (n - 1) hours, a microsecond earlier when n % 24 = 0:
    // on the 1st, n = 2, 4, …, 22 in the odd hours 01…21 and n = 24 at 22:59:59.999999.
    const firstDay = kept.filter((k: { account_id: string; facet: string }) => k.account_id === 'acct_0' && k.facet === 'hour:2025-03-01');
    expect(firstDay.map((k: { value: string; n: number }) => [k.value, k.n])).toEqual([
      ['01', 1], ['03', 1], ['05', 1], ['07', 1], ['09', 1], ['11', 1], ['13', 1], ['15', 1], ['17', 1], ['19', 1], ['21', 1], ['22', 1],
    ]);
  });

  it('counts every conversation already there under its duration', async () => {
    const kept = await after.query(
      `SELECT account_id, value, conversations::int AS n FROM conversations.conversation_counts WHERE facet = 'duration' ORDER BY 1, value::int`);
    expect(kept).toEqual(await after.query(
      `SELECT account_id, value, conversations::int AS n FROM (${FACET_COUNTS_SQL}) f WHERE facet = 'duration' ORDER BY 1, value::int`));
    // acct_1 holds the odd n of 1..72; n % 7 = 0 (7, 21, 35, 49, 63) lasted 0 s.
    expect(kept).toContainEqual({ account_id: 'acct_1', value: '0', n: 5 });
  });

  it('is undone without touching the other counts', async () => {
    const withHours = await after.query(`SELECT * FROM conversations.conversation_counts ORDER BY 1, 2, 3`);
    const hourRunner = after.createQueryRunner();
    await new HourCounts1767400000000().down(hourRunner);
    await hourRunner.release();
    expect(withHours.filter((k: { facet: string }) => k.facet.startsWith('hour:')).length).toBeGreaterThan(0);
    expect(await after.query(`SELECT * FROM conversations.conversation_counts ORDER BY 1, 2, 3`)).toEqual(withHours.filter((k: { facet: string }) => !k.facet.startsWith('hour:')));
    const withTopicDays = await after.query(`SELECT * FROM conversations.conversation_counts ORDER BY 1, 2, 3`);
    const topicDayRunner = after.createQueryRunner();
    await new TopicDayCounts1767300000000().down(topicDayRunner);
    await topicDayRunner.release();
    const isTopicDay = (k: { facet: string }) => k.facet.startsWith('day:') && k.facet.includes(':topic:');
    expect(withTopicDays.filter(isTopicDay).length).toBeGreaterThan(0);
    expect(await after.query(`SELECT * FROM conversations.conversation_counts ORDER BY 1, 2, 3`)).toEqual(withTopicDays.filter((k: { facet: string }) => !isTopicDay(k)));
    const durationRunner = after.createQueryRunner();
    await new DurationCounts1767200000000().down(durationRunner);
    await durationRunner.release();
    const runner = after.createQueryRunner();
    await new StatusTopicCounts1767100000000().down(runner);
    await runner.release();
    expect(await after.query(`SELECT count(*)::int AS n FROM conversations.conversation_counts WHERE facet IN ('status:topic', 'duration')`)).toEqual([{ n: 0 }]);
    const others = await after.query(`SELECT * FROM conversations.conversation_counts WHERE facet NOT LIKE 'day%' ORDER BY 1, 2, 3`);
    const dayRunner = after.createQueryRunner();
    await new ConversationDayCounts1767000000000().down(dayRunner);
    await dayRunner.release();
    expect(await after.query(`SELECT count(*)::int AS n FROM conversations.conversation_counts WHERE facet LIKE 'day%'`)).toEqual([{ n: 0 }]);
    expect(await after.query(`SELECT * FROM conversations.conversation_counts ORDER BY 1, 2, 3`)).toEqual(others);
  });
});
