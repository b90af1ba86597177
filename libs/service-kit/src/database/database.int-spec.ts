import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { openDatabase, preparedRead } from './database.js';
import { classifyFailure } from './pg-errors.js';

type PoolClient = pg.PoolClient;
const poolOf = (dataSource: DataSource) => (dataSource.driver as unknown as { master: pg.Pool }).master;

/**
 * A dropped database connection never kills the process: every pg client of a service's DataSource keeps an
 * 'error' listener for its whole life, including while it is checked out, when neither pg-pool nor TypeORM
 * listens (an 'error' event without a listener is thrown by Node).
 */
describe('database connections that die', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  const admin = () => new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });

  beforeAll(async () => {
    db = await createTestDatabase('dbstorm');
    dataSource = await openDatabase({ url: db.url, schema: 'probe', migrations: [], poolSize: 6, applicationName: 'storm-probe' });
  });
  afterAll(async () => {
    await dataSource?.destroy().catch(() => undefined);
    await db.drop();
  });

  it('the gap exists: a checked-out client of a plain TypeORM pool has no error listener, and its error is thrown', async () => {
    const plain = new DataSource({ type: 'postgres', url: db.url, extra: { max: 1 } });
    await plain.initialize();
    const client: PoolClient = await poolOf(plain).connect();
    try {
      expect(client.listenerCount('error')).toBe(0);
      expect(() => client.emit('error', new Error('terminating connection due to administrator command'))).toThrow('administrator command');
    } finally {
      client.release(true);
      await plain.destroy();
    }
  });

  it('a checked-out client of openDatabase keeps a listener: its error is handled', async () => {
    const clients: PoolClient[] = [];
    // Every client the pool holds, the ones it made at start and new ones.
    for (let i = 0; i < 6; i += 1) clients.push(await poolOf(dataSource).connect());
    try {
      for (const client of clients) {
        expect(client.listenerCount('error')).toBeGreaterThan(0);
        expect(() => client.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
      }
    } finally {
      for (const client of clients) client.release(true);
    }
    expect(await dataSource.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('survives a storm of terminated connections under load: queries fail only as outages, and work afterwards', async () => {
    const terminator = admin();
    await terminator.connect();
    const failures: string[] = [];
    let succeeded = 0;
    let running = true;
    const worker = async () => {
      while (running) {
        try {
          await dataSource.transaction(async (manager) => {
            await manager.query('SELECT pg_sleep(0.01)');
            await manager.query('SELECT 1');
          });
          succeeded += 1;
        } catch (err) {
          failures.push(classifyFailure(err));
        }
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    for (let round = 0; round < 30; round += 1) {
      await terminator.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'storm-probe' AND pid <> pg_backend_pid()`);
      await new Promise((r) => setTimeout(r, 50));
    }
    running = false;
    await Promise.all(workers);
    await terminator.end();
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(['outage']));
    expect(succeeded).toBeGreaterThan(0);
    expect(await dataSource.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  }, 60_000);

  it('every connection runs without JIT, whatever the server’s default (a short read never waits for a compile)', async () => {
    const pool = poolOf(dataSource);
    const clients = await Promise.all(Array.from({ length: 3 }, () => pool.connect()));
    try {
      for (const client of clients) expect((await client.query('SHOW jit')).rows).toEqual([{ jit: 'off' }]);
    } finally {
      for (const client of clients) client.release();
    }
  });
});

describe('preparedRead: a named statement on the pool', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('prepared');
    dataSource = await openDatabase({ url: db.url, schema: 'probe', migrations: [], poolSize: 4, applicationName: 'prepared-probe' });
    await dataSource.query('CREATE TABLE probe.items (id text PRIMARY KEY, account_id text NOT NULL, body jsonb, at timestamptz)');
    await dataSource.query(`INSERT INTO probe.items SELECT 'i' || n, 'a' || (n % 3), jsonb_build_object('n', n), '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 minute' FROM generate_series(1, 50) n`);
  });
  afterAll(async () => {
    await dataSource?.destroy().catch(() => undefined);
    await db.drop();
  });

  const sql = 'SELECT id, account_id, body, at FROM probe.items WHERE id = $1 AND account_id = $2';

  it('answers what TypeORM answers, typed alike, on every connection of the pool', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => [`i${i + 1}`, `a${(i + 1) % 3}`]);
    const prepared = await Promise.all(ids.map(([id, account]) => preparedRead(dataSource, 'probe.item', sql, [id, account])));
    const plain = await Promise.all(ids.map(([id, account]) => dataSource.query(sql, [id, account])));
    expect(prepared).toEqual(plain);
    expect(prepared[4][0]).toEqual({ id: 'i5', account_id: 'a2', body: { n: 5 }, at: new Date('2026-01-01T00:05:00Z') });
    // Another account's id finds nothing.
    expect(await preparedRead(dataSource, 'probe.item', sql, ['i5', 'a0'])).toEqual([]);
  });

  it('is a named statement of the connection (parsed once), not planned again each time', async () => {
    const single = new DataSource({ type: 'postgres', url: db.url, extra: { max: 1 } });
    await single.initialize();
    try {
      for (let i = 0; i < 3; i++) expect(await preparedRead(single, 'probe.item', sql, ['i7', 'a1'])).toHaveLength(1);
      // The pool's one connection answers this too: its prepared statements are the ones preparedRead left.
      expect(await single.query('SELECT name FROM pg_prepared_statements')).toEqual([{ name: 'probe.item' }]);
    } finally {
      await single.destroy();
    }
  });

  it('fails with the SQLSTATE the failure classification reads', async () => {
    const failure = await preparedRead(dataSource, 'probe.broken', 'SELECT id FROM probe.missing WHERE id = $1', ['x']).catch((err: unknown) => err);
    expect((failure as { code?: string }).code).toBe('42P01');
    expect(classifyFailure(failure)).toBe('defect');
  });
});
