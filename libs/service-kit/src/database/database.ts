import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';

export interface DatabaseOptions {
  url: string;
  /**
   * The schema owner's URL (DATABASE_MIGRATION_URL): schema, extension and migrations are
   * applied through it, then it is closed and the service runs as `url`'s role, which needs
   * only rights on the tables of its schema (deploy/postgres/). Unset: `url` does both.
   */
  migrationUrl?: string;
  /** The service's own schema; created before migrations run. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize?: number;
  applicationName?: string;
}

/**
 * Settings of every connection a service opens (libpq's `options`). JIT off: the services send short index reads
 * and writes, and the planner's row estimates for joins on per-account ids exceed jit_above_cost at ten million
 * rows — a 100-row list page then spent 15–90 ms compiling what runs in 5–20 ms (EXPLAIN ANALYZE on the 10M bench
 * database).
 */
export const SESSION_SETTINGS = '-c jit=off';

/**
 * Open the service's DataSource and bring its schema up to date. Migrations run
 * under an advisory lock so replicas starting together do not race.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  if (options.migrationUrl) {
    // Two connections: one holds the migration lock while the migrations run on another.
    const owner = await openDatabase({ ...options, url: options.migrationUrl, migrationUrl: undefined, poolSize: 2 });
    await owner.destroy();
    const dataSource = createDataSource({ ...options, migrations: [] });
    await dataSource.initialize();
    keepClientErrorsHandled(dataSource);
    return dataSource;
  }
  const dataSource = createDataSource(options);
  await dataSource.initialize();
  keepClientErrorsHandled(dataSource);
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${options.schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
    await runner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm').catch(() => undefined);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${options.schema}`]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}

function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? options.schema,
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000, options: SESSION_SETTINGS },
  });
}

/** The pg pool behind a TypeORM postgres DataSource (`driver.master`), typed to what is used here. */
interface PgPoolLike {
  on(event: 'connect', listener: (client: PgClientLike) => void): void;
  _clients?: PgClientLike[];
}
interface PgClientLike {
  on(event: 'error', listener: (err: Error) => void): void;
  listeners(event: 'error'): unknown[];
}

/** Our permanent listener, recognisable so it is attached once per client. */
const ignoreClientError = Object.assign((_err: Error) => undefined, { permanent: true });

/**
 * A pg Client emits 'error' when its connection dies (57P01 when an administrator or a failover terminates it,
 * ECONNRESET…). pg-pool listens only while a client is idle and TypeORM only while a query runner holds it, so
 * a client between the two has no listener, and an 'error' event without one is thrown: the process exits.
 * Every client therefore gets a listener of its own for its whole life. It needs to do nothing: the query in
 * flight on that connection is rejected with the same error (and answered as an outage), and the pool drops
 * the dead client.
 */
export function keepClientErrorsHandled(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: PgPoolLike }).master;
  if (!pool) return;
  const attach = (client: PgClientLike) => {
    if (!client.listeners('error').includes(ignoreClientError)) client.on('error', ignoreClientError);
  };
  pool.on('connect', attach);
  for (const client of pool._clients ?? []) attach(client);
}

/**
 * A read sent straight to the DataSource's pg pool as a named statement: each connection parses and plans it once,
 * then only binds and runs it, with no TypeORM query runner around the call. Only for statements whose best plan
 * cannot depend on the parameters or on the table's size — a primary-key lookup — because PostgreSQL may keep the
 * named statement's generic plan (an unnamed one is planned again every time: see DeliveriesStore). Errors are
 * pg's own (SQLSTATE in `code`), which the failure classification reads as it reads TypeORM's.
 */
export async function preparedRead<T>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master?: { query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }> } }).master;
  if (!pool) return dataSource.query(text, values);
  return (await pool.query({ name, text, values })).rows;
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier: ${name}`);
  return `"${name}"`;
}

/** Run work in one transaction on a dedicated connection. */
export async function inTransaction<T>(dataSource: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  try {
    const result = await work(runner);
    await runner.commitTransaction();
    return result;
  } catch (err) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
