import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { copyTables, moveTables, openDatabase, swapInCopies } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from './conversations-database.js';
import { PARTITIONED_BY_ACCOUNT, PartitionedByAccount1766000000000, READ_MODEL_PARTITIONS } from './migrations/1766000000000-partitioned-by-account.js';

const TABLES = ['conversations', 'conversation_search', 'conversation_topics', 'events'];
const ACCOUNTS = Array.from({ length: 40 }, (_, i) => `acct_${i}`);
const PER_ACCOUNT = 25;

/** Every row of a table as JSON, in a stable order, for comparing before and after. */
const rowsOf = (db: DataSource, table: string) =>
  db.query(`SELECT to_jsonb(t) AS row FROM conversations.${table} t ORDER BY to_jsonb(t)::text`).then((rows: Array<{ row: unknown }>) => rows.map((r) => r.row));

const namesOf = (db: DataSource, sql: string, params: unknown[] = []) => db.query(sql, params).then((rows: Array<{ name: string }>) => rows.map((r) => r.name).sort());
const indexNames = (db: DataSource) =>
  namesOf(db, `SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'conversations' AND tablename = ANY($1::text[])`, [TABLES]);
const triggerNames = (db: DataSource) =>
  namesOf(db, `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'conversations.conversations'::regclass AND NOT tgisinternal`);

/** The migrations up to the partitioning, and those before it (later ones are not this spec's). */
const throughPartitioning = conversationsMigrations.slice(0, conversationsMigrations.indexOf(PartitionedByAccount1766000000000) + 1);
const beforePartitioning = throughPartitioning.slice(0, -1);

/** The move of the read model and the event store into partitions by account, on a schema holding data (real PostgreSQL). */
describe('migration: partitioned by account', () => {
  let db: TestDatabase;
  const open: DataSource[] = [];
  const openWith = async (migrations: typeof conversationsMigrations) => {
    const dataSource = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations });
    open.push(dataSource);
    return dataSource;
  };
  let before: Record<string, unknown[]>;
  let indexesBefore: string[];
  let triggersBefore: string[];
  let after: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('convpartitions');
    const previous = await openWith(beforePartitioning);
    // A thousand conversations over forty accounts, each with its events, search row and topics, written as the
    // projection writes them (the triggers on the read model fill the change outbox as they would).
    await previous.query(
      `INSERT INTO conversations.events (stream_id, stream_version, event_id, type, data, account_id)
       SELECT 'conv_' || n, v, 'evt_' || a || '_' || n || '_' || v, 'call.started', jsonb_build_object('n', n, 'v', v), a
         FROM unnest($1::text[]) a, generate_series(1, $2::int) n, generate_series(1, 3) v`,
      [ACCOUNTS, PER_ACCOUNT],
    );
    await previous.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, caller_number, status, start_time, duration, topics, topics_lower,
              search_text, detail, stream_version)
       SELECT 'conv_' || n, a, 'agt_' || (n % 3), '+1415555' || lpad(n::text, 4, '0'), CASE WHEN n % 2 = 0 THEN 'completed' ELSE 'failed' END,
              '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 minute', n * 7, ARRAY['Billing'], ARRAY['billing'],
              'caller ' || n || ' asked about billing', jsonb_build_object('n', n), 3
         FROM unnest($1::text[]) a, generate_series(1, $2::int) n`,
      [ACCOUNTS, PER_ACCOUNT],
    );
    await previous.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
                          SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations`);
    await previous.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
                          SELECT account_id, 'billing', id, start_time, status, agent_id FROM conversations.conversations`);
    before = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await rowsOf(previous, t)] as const)));
    indexesBefore = await indexNames(previous);
    triggersBefore = await triggerNames(previous);
    after = await openWith(throughPartitioning);
  }, 120_000);

  afterAll(async () => {
    for (const dataSource of open) await dataSource.destroy();
    await db?.drop();
  });

  it('keeps every row of every table, exactly', async () => {
    expect(before.conversations).toHaveLength(ACCOUNTS.length * PER_ACCOUNT);
    expect(before.events).toHaveLength(ACCOUNTS.length * PER_ACCOUNT * 3);
    for (const table of TABLES) expect(await rowsOf(after, table)).toEqual(before[table]);
  });

  it('splits each table into its partitions, every account in one of them, and keeps the names of its indexes and triggers', async () => {
    for (const table of TABLES) {
      const [{ partitions }] = await after.query(
        `SELECT count(*)::int AS partitions FROM pg_inherits WHERE inhparent = $1::regclass`, [`conversations.${table}`]);
      expect(partitions).toBe(READ_MODEL_PARTITIONS);
      const spread = await after.query(
        `SELECT account_id, count(DISTINCT tableoid)::int AS tables FROM conversations.${table} GROUP BY account_id HAVING count(DISTINCT tableoid) > 1`);
      expect(spread).toEqual([]);
    }
    const [{ used }] = await after.query('SELECT count(DISTINCT tableoid)::int AS used FROM conversations.conversations');
    expect(used).toBeGreaterThan(READ_MODEL_PARTITIONS / 2);
    expect(await indexNames(after)).toEqual(indexesBefore);
    expect(await triggerNames(after)).toEqual(triggersBefore);
  });

  it('an account-scoped read touches one partition', async () => {
    const plan: Array<{ 'QUERY PLAN': string }> = await after.query(
      `EXPLAIN SELECT id FROM conversations.conversations WHERE account_id = 'acct_7' ORDER BY start_time DESC, id DESC LIMIT 25`);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text.match(/conversations_h\d\d/g)?.length).toBe(1);
  });

  it('goes on where the rows left off: new events take positions after the last, writes still reach the change outbox', async () => {
    const [{ last }] = await after.query('SELECT max(global_position)::bigint AS last FROM conversations.events');
    const [{ global_position }] = await after.query(
      `INSERT INTO conversations.events (stream_id, stream_version, event_id, type, data, account_id)
       VALUES ('conv_new', 1, 'evt_new', 'call.started', '{}', 'acct_1') RETURNING global_position`);
    expect(BigInt(global_position)).toBe(BigInt(last) + 1n);
    expect(await after.query(`SELECT pg_get_serial_sequence('conversations.events', 'global_position') AS s`)).toEqual([{ s: 'conversations.events_global_position_seq' }]);
    await expect(after.query(`INSERT INTO conversations.events (stream_id, stream_version, event_id, type, data, account_id)
                              VALUES ('conv_other', 1, 'evt_new', 'call.started', '{}', 'acct_1')`)).rejects.toThrow(/duplicate key/);

    const [{ n: changesBefore }] = await after.query('SELECT count(*)::int AS n FROM conversations.conversation_changes');
    await after.query(`INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
                       VALUES ('conv_new', 'acct_1', 'agt_1', 'in_progress', now(), '{}', 1)`);
    await after.query(`UPDATE conversations.conversations SET status = 'completed', stream_version = 2 WHERE account_id = 'acct_1' AND id = 'conv_new'`);
    const [{ n: changesAfter }] = await after.query('SELECT count(*)::int AS n FROM conversations.conversation_changes');
    expect(changesAfter - changesBefore).toBe(2);
    const [{ changed }] = await after.query(
      `SELECT changed_xid <> (SELECT changed_xid FROM conversations.conversations WHERE account_id = 'acct_1' AND id = 'conv_1') AS changed
         FROM conversations.conversations WHERE account_id = 'acct_1' AND id = 'conv_new'`);
    expect(changed).toBe(true);
  });

  it('moves again into another number of partitions, and back, keeping every row', async () => {
    const rows = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await rowsOf(after, t)] as const)));
    const into = (partitions: number) => after.transaction((manager) => moveTables(manager,
      PARTITIONED_BY_ACCOUNT.map((layout) => ({ ...layout, hashPartitions: { column: 'account_id', partitions } }))));
    await into(4);
    for (const table of TABLES) {
      expect(await after.query(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = $1::regclass`, [`conversations.${table}`])).toEqual([{ n: 4 }]);
      expect(await rowsOf(after, table)).toEqual(rows[table]);
    }
    await into(READ_MODEL_PARTITIONS);
    for (const table of TABLES) expect(await rowsOf(after, table)).toEqual(rows[table]);
    expect(await indexNames(after)).toEqual(indexesBefore);
    const partitionNames = await namesOf(after, `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'conversations.conversations'::regclass`);
    expect(partitionNames).toEqual(Array.from({ length: READ_MODEL_PARTITIONS }, (_, i) => `conversations.conversations_h${String(i).padStart(2, '0')}`));
  });

  it('is undone into plain tables holding the same rows under the same names', async () => {
    const partitioned = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await rowsOf(after, t)] as const)));
    await after.undoLastMigration();
    for (const table of TABLES) {
      const [{ kind }] = await after.query(`SELECT relkind AS kind FROM pg_class WHERE oid = $1::regclass`, [`conversations.${table}`]);
      expect([table, kind]).toEqual([table, 'r']);
      expect(await rowsOf(after, table)).toEqual(partitioned[table]);
    }
    expect(await indexNames(after)).toEqual(indexesBefore);
    expect(await triggerNames(after)).toEqual(triggersBefore);
    const [{ key }] = await after.query(`SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint WHERE conname = 'events_pkey' AND conrelid = 'conversations.events'::regclass`);
    expect(key).toBe('PRIMARY KEY (global_position)');
  });
});

/** What a running service sees while the migration moves its tables: readers read on, writers wait and lose nothing. */
describe('migration: partitioned by account, beside a running service', () => {
  let db: TestDatabase;
  let schema: DataSource;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    clients.push(client);
    return client;
  };
  const count = async (client: pg.Client, table: string, account = 'acct_1') =>
    (await client.query(`SELECT count(*)::int AS n FROM conversations.${table} WHERE account_id = $1`, [account])).rows[0].n;
  /** Sessions of this database waiting on a lock while running a statement that starts so. */
  const waitingOn = async (statement: string) => (await schema.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`, [`${statement}%`]))[0].n;
  const untilWaiting = async (statement: string) => {
    for (let tries = 0; (await waitingOn(statement)) === 0 && tries < 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await waitingOn(statement)).toBe(1);
  };
  const insertConversation = (client: pg.Client, id: string) => client.query(
    `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
     VALUES ($1, 'acct_1', 'agt_1', 'in_progress', now(), '{}', 1)`, [id]);
  const insertEvent = (client: pg.Client, id: string) => client.query(
    `INSERT INTO conversations.events (stream_id, stream_version, event_id, type, data, account_id)
     VALUES ($1, 1, $1, 'call.started', '{}', 'acct_1')`, [id]);

  beforeEach(async () => {
    db = await createTestDatabase('convpartwait');
    schema = await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: beforePartitioning });
    await schema.query(`INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
                        SELECT 'conv_' || n, 'acct_' || (n % 7), 'agt_1', 'completed', now(), '{}', 1 FROM generate_series(1, 2000) n`);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end();
    await schema?.destroy();
    await db?.drop();
  });

  it('while the copies are built a read answers at once and a write waits; after the swap the write is in the partitioned table', async () => {
    const migrating = schema.createQueryRunner();
    await migrating.startTransaction();
    try {
      const copies = await copyTables(migrating, PARTITIONED_BY_ACCOUNT);
      const writer = await connect();
      const writing = insertConversation(writer, 'conv_during');
      await untilWaiting('INSERT INTO conversations.conversations');
      const reader = await connect();
      const started = Date.now();
      expect(await count(reader, 'conversations')).toBe(286);
      expect(Date.now() - started).toBeLessThan(5_000);

      await swapInCopies(migrating, copies);
      await migrating.commitTransaction();
      await writing;
    } finally {
      if (migrating.isTransactionActive) await migrating.rollbackTransaction();
      await migrating.release();
    }
    const [{ n, partitioned }] = await schema.query(
      `SELECT count(*)::int AS n, bool_and(tableoid::regclass::text LIKE 'conversations.conversations_h%') AS partitioned
         FROM conversations.conversations WHERE account_id = 'acct_1'`);
    expect({ n, partitioned }).toEqual({ n: 287, partitioned: true });
  });

  it('a writer holding one table and wanting another (an erasure: the read model, then the events) neither deadlocks with the move nor loses its write', async () => {
    const eraser = await connect();
    await eraser.query('BEGIN');
    await insertConversation(eraser, 'conv_erasing');
    const migrating = schema.createQueryRunner();
    await migrating.startTransaction();
    const moving = new PartitionedByAccount1766000000000().up(migrating).then(() => migrating.commitTransaction());
    try {
      await untilWaiting('LOCK TABLE');
      // The move has taken the event store and waits for the read model: the eraser's next step closes a cycle, which the
      // move breaks by letting go of what it took and trying again once the eraser is done.
      await insertEvent(eraser, 'evt_erasing');
      await eraser.query('COMMIT');
      await moving;
    } finally {
      await moving.catch(() => undefined);
      if (migrating.isTransactionActive) await migrating.rollbackTransaction();
      await migrating.release();
    }
    const reader = await connect();
    expect([await count(reader, 'conversations'), await count(reader, 'events')]).toEqual([287, 1]);
    const [{ kind }] = await schema.query(`SELECT relkind AS kind FROM pg_class WHERE oid = 'conversations.events'::regclass`);
    expect(kind).toBe('p');
  });
});
