import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { isDatabaseUnavailable, openDatabase } from './database.js';

/** The classification is checked against errors a real PostgreSQL and the real drivers produce. */
describe('isDatabaseUnavailable', () => {
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

  it('is false for a bug in a query', async () => {
    const err = await dataSource.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('is true when the server drops the connection and then refuses new ones', async () => {
    const client = admin();
    await client.connect();
    await client.query(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [db.name]);
    await client.end();
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) errors.push(await dataSource.query('SELECT 1').catch((e: unknown) => e));
    expect(errors.length).toBe(3);
    for (const err of errors) expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('is true when nothing listens on the port', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const err = await client.connect().catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
});
