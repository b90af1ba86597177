import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { openDatabase } from './database.js';
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
});
