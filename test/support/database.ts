import pg from 'pg';
import { randomBytes } from 'node:crypto';

export interface TestDatabase {
  url: string;
  name: string;
  /** One query on a short-lived connection, for assertions on what a service stored. */
  query<R extends Record<string, any> = any>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  drop(): Promise<void>;
}

function adminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * A client for one statement. A connection ended by the server while the client is between statements (a fault
 * test's pg_terminate_backend, a database dropped WITH (FORCE)) is an 'error' event, which with no listener would
 * end the test process; a statement it interrupts still fails through its own promise.
 */
export function shortLivedClient(connectionString: string): pg.Client {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  return client;
}

/** A brand-new, empty database for one test file; dropped afterwards. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const name = `voice_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = shortLivedClient(adminUrl());
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async query(sql, params = []) {
      const client = shortLivedClient(url.toString());
      await client.connect();
      try {
        return await client.query(sql, params);
      } finally {
        await client.end();
      }
    },
    async drop() {
      const client = shortLivedClient(adminUrl());
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
