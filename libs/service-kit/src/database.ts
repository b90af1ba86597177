import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';

export interface DatabaseOptions {
  url: string;
  /** The service's own schema; created before migrations run. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize?: number;
  applicationName?: string;
}

/**
 * Open the service's DataSource and bring its schema up to date. Migrations run
 * under an advisory lock so replicas starting together do not race.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? options.schema,
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 },
  });
  await dataSource.initialize();
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
