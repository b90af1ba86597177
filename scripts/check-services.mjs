#!/usr/bin/env node
// Fails fast, with a clear message, when the test dependencies are not there:
// PostgreSQL accepting connections and a NATS server with JetStream enabled.
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
let failed = false;

try {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  const { rows } = await client.query('SHOW server_version');
  console.log(`PostgreSQL ${rows[0].server_version} at ${new URL(databaseUrl).host}`);
  await client.end();
} catch (err) {
  failed = true;
  console.error(`PostgreSQL is not reachable at ${databaseUrl}: ${err.message}`);
}

try {
  const nc = await connect({ servers: natsUrl, timeout: 5000 });
  const jsm = await jetstreamManager(nc, { timeout: 5000 });
  const info = await jsm.getAccountInfo();
  console.log(`NATS ${nc.info?.version} at ${natsUrl}, JetStream enabled (${info.streams} streams)`);
  await nc.close();
} catch (err) {
  failed = true;
  console.error(`NATS with JetStream is not reachable at ${natsUrl}: ${err.message}`);
}
process.exit(failed ? 1 : 0);
