import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { CALL_EVENTS_STREAM, CALL_EVENTS_SUBJECT_ROOT, DEFAULT_CALL_EVENTS_MAX_AGE_MS, namespacedStream, namespacedSubject } from '@voice/contracts';
import { ensureStream } from '@voice/service-kit';
import { startGateway } from '../apps/api-gateway/src/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from './support/nats.js';

const NS_PER_MS = 1_000_000;

/**
 * CALL_EVENTS is not the system of record (PostgreSQL is), so it keeps a call event only CALL_EVENTS_MAX_AGE_MS: the
 * gateway gives the stream that maximum age at every start, also a stream created before with none or another one.
 */
describe('the maximum age of CALL_EVENTS', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  const namespace = randomNamespace();
  const stream = namespacedStream(namespace, CALL_EVENTS_STREAM);
  const maxAge = async () => (await (await jetstreamManager(nc)).streams.info(stream)).config.max_age;
  const gatewayWith = async (callEventsMaxAgeMs?: number) =>
    (await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: db.url, natsUrl: testNatsUrl(), namespace, callEventsMaxAgeMs })).close();

  beforeAll(async () => {
    db = await createTestDatabase('calleventsage');
    nc = await connect({ servers: testNatsUrl() });
  });
  afterAll(async () => {
    await nc?.close();
    await deleteNamespaceStreams(namespace);
    await db?.drop();
  });

  it('a stream created before without one gets the default (7 days) at start; another setting changes it at the next start', async () => {
    await ensureStream(nc, stream, [namespacedSubject(namespace, `${CALL_EVENTS_SUBJECT_ROOT}.>`)]);
    expect(await maxAge()).toBe(0);
    await gatewayWith();
    expect(await maxAge()).toBe(DEFAULT_CALL_EVENTS_MAX_AGE_MS * NS_PER_MS);
    expect(DEFAULT_CALL_EVENTS_MAX_AGE_MS).toBe(7 * 24 * 3_600_000);
    await gatewayWith(3_600_000);
    expect(await maxAge()).toBe(3_600_000 * NS_PER_MS);
  });
});
