import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { openDatabase } from './database.js';
import { classifyFailure, isDatabaseUnavailable, sqlStateOf } from './pg-errors.js';

/**
 * The errors a real PostgreSQL and the real drivers produce have the shapes the
 * classification reads (pg-errors.spec holds the table of cases).
 */
describe('failures of a real PostgreSQL', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const admin = () => new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });

  beforeAll(async () => {
    db = await createTestDatabase('dbdown');
    dataSource = await openDatabase({ url: db.url, schema: 'probe', migrations: [], poolSize: 2 });
  });
  afterAll(async () => {
    await dataSource?.destroy().catch(() => undefined);
    const client = admin();
    await client.connect();
    await client.query(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS true`);
    await client.end();
    await db.drop();
  });

  it('a bug in a query is a defect, not an unavailable database', async () => {
    const err = await dataSource.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(classifyFailure(err)).toBe('defect');
  });

  it('a refused value is a data fault, bare from pg and wrapped by TypeORM', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const bare = await client.query('SELECT $1::text', ['a\u0000b']).catch((e: unknown) => e);
    await client.end();
    expect(classifyFailure(bare)).toBe('data_fault');
    const badYear = await dataSource.query(`SELECT '0000-01-01T00:00:00Z'::timestamptz`).catch((e: unknown) => e);
    expect(classifyFailure(badYear)).toBe('data_fault');
  });

  it('reads the SQLSTATE a server raises, bare and wrapped by TypeORM', async () => {
    const raise = `DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = '40001'; END $$`;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const bare = await client.query(raise).catch((e: unknown) => e);
    await client.end();
    const viaTypeorm = await dataSource.query(raise).catch((e: unknown) => e);
    for (const err of [bare, viaTypeorm]) {
      expect(sqlStateOf(err)).toBe('40001');
      expect(classifyFailure(err)).toBe('lost_race');
    }
  });

  it('is an unavailable database when the server drops the connection and then refuses new ones', async () => {
    const client = admin();
    await client.connect();
    await client.query(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db.name]);
    await client.end();
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) errors.push(await dataSource.query('SELECT 1').catch((e: unknown) => e));
    expect(errors.length).toBe(3);
    for (const err of errors) {
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(classifyFailure(err)).toBe('outage');
    }
  });

  it('is an unavailable database when nothing listens on the port', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const err = await client.connect().catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(classifyFailure(err)).toBe('outage');
  });
});
