import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import pg from 'pg';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { eventually, STREAM_ADAPTERS, streamsUnderTest } from '../../../../test/support/streams.js';
import type { StreamMessage } from './message-streams.js';

/** A real pino logger whose JSON lines are kept for the test to read. */
function capturedLogger() {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, destination) };
}

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase('streams');
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe.each(STREAM_ADAPTERS)('a failing batch handler over %s', (_name, kind) => {
  const harness = streamsUnderTest(kind);
  const { nextStream } = harness;

  /** JetStream's own view of the durable: nothing pending, nothing awaiting an ack. */
  async function expectDrained(stream: string, durable: string) {
    if (!harness.nc) return;
    const info = await (await jetstreamManager(harness.nc)).consumers.info(stream, durable);
    expect({ pending: info.num_pending, ack_pending: info.num_ack_pending }).toEqual({ pending: 0, ack_pending: 0 });
  }

  /** The services' pattern: one transaction for the whole batch, acks after the commit. */
  const storeInTransaction = (table: string) => async (batch: StreamMessage[]) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const m of batch) {
        const { id, body } = m.data as { id: string; body: string };
        await client.query(`INSERT INTO ${table} (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [id, body]);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
    for (const m of batch) m.ack();
  };

  it('isolates a poison message PostgreSQL refuses: the rest of its batch is stored and acked, the poison one is terminated and logged', async () => {
    const { stream, subject, n } = nextStream();
    const table = `rows_${kind.replace('-', '_')}_${n}`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, body text NOT NULL)`);
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    // Published before the consumer starts; batches are whatever has arrived, one transaction each.
    const ids = ['ok-1', 'ok-2', 'poison', 'ok-3', 'ok-4'];
    for (const id of ids) await harness.streams.publish(`${subject}.x`, { id, body: id === 'poison' ? 'nul \u0000 inside' : `body of ${id}` }, id);

    const { lines, logger } = capturedLogger();
    const handled: Array<Array<{ id: string; delivery: number }>> = [];
    // The services' pattern (storeInTransaction), with a record of each delivery.
    const handle = async (batch: StreamMessage[]) => {
      handled.push(batch.map((m) => ({ id: (m.data as { id: string }).id, delivery: m.deliveryCount })));
      // A slow first batch: whatever it did not hold has arrived meanwhile and forms the next one.
      if (handled.length === 1) await new Promise((r) => setTimeout(r, 300));
      await storeInTransaction(table)(batch);
    };
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 1000, logger }, handle);
    try {
      await eventually(async () => {
        const { rows } = await pool.query(`SELECT id FROM ${table} ORDER BY id`);
        expect(rows.map((r) => r.id)).toEqual(['ok-1', 'ok-2', 'ok-3', 'ok-4']);
      });
      await eventually(() => expect(lines.some((l) => l.msg.startsWith('poison message'))).toBe(true));
      // Longer than the old 1 s nak delay and the ack wait: nothing comes back.
      const handledSoFar = handled.length;
      await new Promise((r) => setTimeout(r, 2500));
      expect(handled.length).toBe(handledSoFar);
      expect(handled.flat().every((h) => h.delivery === 1)).toBe(true);
      // The poison message met valid ones in a batch, then was tried once more, alone.
      expect(handled.some((b) => b.length > 1 && b.some((h) => h.id === 'poison'))).toBe(true);
      expect(handled.filter((b) => b.some((h) => h.id === 'poison')).at(-1)).toEqual([{ id: 'poison', delivery: 1 }]);

      const batchFailure = lines.find((l) => l.msg.startsWith('batch handler failed'))!;
      expect(batchFailure).toMatchObject({ level: 50, stream, durable: 'd', err: { message: expect.stringMatching(/invalid byte sequence|0x00/) } });
      const poison = lines.filter((l) => l.msg.startsWith('poison message'));
      expect(poison).toEqual([expect.objectContaining({ level: 50, msg_id: 'poison', event_id: 'poison', delivery: 1, subject: `${subject}.x`, stream, durable: 'd', err: expect.objectContaining({ code: '22021' }) })]);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });

  it('isolates a message a trigger refuses (P0001, a data fault): the rest is stored, the refused one is terminated', async () => {
    const { stream, subject, n } = nextStream();
    const table = `refusing_${kind.replace('-', '_')}_${n}`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, body text NOT NULL)`);
    await pool.query(`CREATE FUNCTION ${table}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.body = 'refused' THEN RAISE EXCEPTION 'row refused'; END IF; RETURN NEW; END $$`);
    await pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_refuse()`);
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (const id of ['t-1', 't-2', 't-3']) await harness.streams.publish(`${subject}.x`, { id, body: id === 't-2' ? 'refused' : `body of ${id}` }, `trigger-${id}`);

    const { lines, logger } = capturedLogger();
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 1000, logger }, storeInTransaction(table));
    try {
      await eventually(async () => {
        const { rows } = await pool.query(`SELECT id FROM ${table} ORDER BY id`);
        expect(rows.map((r) => r.id)).toEqual(['t-1', 't-3']);
      });
      await eventually(() => expect(lines.some((l) => l.msg.startsWith('poison message'))).toBe(true));
      expect(lines.filter((l) => l.msg.startsWith('poison message'))).toEqual([
        expect.objectContaining({ level: 50, msg_id: 'trigger-t-2', err: expect.objectContaining({ code: 'P0001' }) }),
      ]);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });

  it('does not terminate anything when the database is unreachable: the batch comes back later', async () => {
    const { stream, subject } = nextStream();
    const { lines, logger } = capturedLogger();
    const seen: number[] = [];
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', logger }, async (batch) => {
      for (const m of batch) seen.push(m.deliveryCount);
      if (batch.some((m) => m.deliveryCount === 1)) {
        // A real driver error: nothing listens on port 1.
        const unreachable = new pg.Client({ host: '127.0.0.1', port: 1, user: 'postgres', connectionTimeoutMillis: 2000 });
        await unreachable.connect();
      }
      for (const m of batch) m.ack();
    });
    try {
      await harness.streams.publish(`${subject}.x`, { n: 1 }, 'down-1');
      await eventually(() => expect(seen).toEqual([1, 2]), 8000);
      expect(lines).toEqual([expect.objectContaining({ level: 50, msg: expect.stringMatching(/transient/), err: expect.objectContaining({ code: 'ECONNREFUSED' }) })]);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });

  it.each([
    ['out of disk space (53100, transient)', 'disk_full', '53100', /transient/],
    ['failing with an internal error (XX000, not a data error)', 'internal_error', 'XX000', /^outage/],
  ])('terminates nothing while PostgreSQL is %s for every message; everything is stored once it recovers', async (_what, condition, sqlstate, logged) => {
    const { stream, subject, n } = nextStream();
    const table = `down_${kind.replace('-', '_')}_${n}`;
    await pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY, body text NOT NULL)`);
    await pool.query(`CREATE FUNCTION ${table}_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: simulated' USING ERRCODE = '${condition}'; END $$`);
    await pool.query(`CREATE TRIGGER fail BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_fail()`);
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    const ids = ['e-1', 'e-2', 'e-3', 'e-4', 'e-5'];
    // The in-process stand-in de-duplicates message ids across its harness.streams.
    for (const id of ids) await harness.streams.publish(`${subject}.x`, { id, body: `body of ${id}` }, `${sqlstate}-${id}`);

    const { lines, logger } = capturedLogger();
    const attempts: string[] = [];
    const store = storeInTransaction(table);
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 20_000, logger }, async (batch) => {
      attempts.push(...batch.map((m) => (m.data as { id: string }).id));
      await store(batch);
    });
    try {
      // Every message has failed at least once, and has come back at least once.
      await eventually(() => expect(ids.every((id) => attempts.filter((a) => a === id).length >= 2)).toBe(true), 8000);
      await pool.query(`DROP TRIGGER fail ON ${table}`);
      await eventually(async () => {
        const { rows } = await pool.query(`SELECT id FROM ${table} ORDER BY id`);
        expect(rows.map((r) => r.id)).toEqual(ids);
      }, 40_000);
      expect(lines.filter((l) => /poison|terminated, it/.test(l.msg))).toEqual([]);
      const failures = lines.filter((l) => logged.test(l.msg));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((l) => l.level === 50 && l.err?.code === sqlstate)).toBe(true);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it('terminates nothing when the handler throws a non-database error for every message; all are handled once it is fixed', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (const n of [1, 2, 3, 4]) await harness.streams.publish(`${subject}.x`, { n }, `bug-${n}`);
    const { lines, logger } = capturedLogger();
    let broken = true;
    const calls: number[][] = [];
    const handled = new Set<number>();
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 20_000, logger }, async (batch) => {
      calls.push(batch.map((m) => (m.data as { n: number }).n));
      if (broken) throw new TypeError("Cannot read properties of undefined (reading 'agent_id')");
      for (const m of batch) {
        handled.add((m.data as { n: number }).n);
        m.ack();
      }
    });
    try {
      await eventually(() => expect(lines.filter((l) => l.msg.startsWith('outage')).length).toBeGreaterThanOrEqual(2), 8000);
      broken = false;
      await eventually(() => expect([...handled].sort()).toEqual([1, 2, 3, 4]), 40_000);
      expect(lines.filter((l) => /poison|terminated, it/.test(l.msg))).toEqual([]);
      // Once per failed batch that went through the one-at-a-time retry, not once per message.
      const outages = lines.filter((l) => l.msg.startsWith('outage'));
      expect(outages.length).toBe(lines.filter((l) => l.msg === 'batch handler failed; retrying its messages one at a time').length);
      expect(outages[0]).toMatchObject({ level: 50, stream, durable: 'd', err: { message: expect.stringContaining('agent_id') } });
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it('terminates a message that throws a non-database error on its own while the rest of its batch succeeds', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (const n of [1, 2, 3, 4, 5]) await harness.streams.publish(`${subject}.x`, { n }, `one-bug-${n}`);
    const { lines, logger } = capturedLogger();
    const calls: number[][] = [];
    const handled: number[] = [];
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 1000, logger }, async (batch) => {
      calls.push(batch.map((m) => (m.data as { n: number }).n));
      // A slow first batch: whatever it did not hold has arrived meanwhile and forms the next one.
      if (calls.length === 1) await new Promise((r) => setTimeout(r, 300));
      if (batch.some((m) => (m.data as { n: number }).n === 3)) throw new RangeError('Invalid time value');
      for (const m of batch) {
        handled.push((m.data as { n: number }).n);
        m.ack();
      }
    });
    try {
      await eventually(() => expect([...handled].sort()).toEqual([1, 2, 4, 5]));
      await eventually(() => expect(lines.some((l) => l.msg.startsWith('poison message'))).toBe(true));
      await new Promise((r) => setTimeout(r, 1500));
      expect(lines.filter((l) => l.msg.startsWith('poison message'))).toEqual([
        expect.objectContaining({ level: 50, msg_id: 'one-bug-3', delivery: 1, err: expect.objectContaining({ message: 'Invalid time value' }) }),
      ]);
      expect(calls.filter((c) => c.includes(3)).at(-1)).toEqual([3]);
      expect(lines.filter((l) => l.msg.startsWith('outage'))).toEqual([]);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });

  it('stops retrying alone once a message fails transiently on its own: it and the rest come back later', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (const n of [1, 2, 3]) await harness.streams.publish(`${subject}.x`, { n }, `mid-${n}`);
    const { lines, logger } = capturedLogger();
    const calls: Array<Array<{ n: number; delivery: number }>> = [];
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 20_000, logger }, async (batch) => {
      calls.push(batch.map((m) => ({ n: (m.data as { n: number }).n, delivery: m.deliveryCount })));
      if (calls.length === 1) await new Promise((r) => setTimeout(r, 300));
      if (batch[0].deliveryCount === 1) {
        if (batch.length > 1) throw new Error('the batch fails');
        // Alone, the first one finds the database gone.
        await new pg.Client({ host: '127.0.0.1', port: 1, user: 'postgres', connectionTimeoutMillis: 2000 }).connect();
      }
      for (const m of batch) m.ack();
    });
    try {
      await eventually(() => expect(new Set(calls.flat().filter((c) => c.delivery > 1).map((c) => c.n))).toEqual(new Set([1, 2, 3])), 10_000);
      // Of each failed batch, only its first message was tried alone before the outage was seen.
      const failedBatches = calls.filter((c) => c.length > 1 && c[0].delivery === 1);
      const triedAlone = calls.filter((c) => c.length === 1 && c[0].delivery === 1 && failedBatches.some((b) => b.some((x) => x.n === c[0].n)));
      expect(triedAlone.length).toBe(failedBatches.length);
      expect(lines.filter((l) => /poison|terminated, it/.test(l.msg))).toEqual([]);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });

  it('retries alone only the messages a failing handler left unsettled', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (const n of [1, 2, 3]) await harness.streams.publish(`${subject}.x`, { n }, `partial-${n}`);
    const { lines, logger } = capturedLogger();
    const calls: number[][] = [];
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', logger }, async (batch) => {
      calls.push(batch.map((m) => (m.data as { n: number }).n));
      if (calls.length === 1) await new Promise((r) => setTimeout(r, 300));
      batch[0].ack();
      if (batch.length > 1) throw new Error('failed after the first ack');
      batch.forEach((m) => m.ack());
    });
    try {
      await eventually(() => expect(new Set(calls.flat())).toEqual(new Set([1, 2, 3])));
      await new Promise((r) => setTimeout(r, 300));
      const failed = calls.filter((c) => c.length > 1);
      expect(failed.length).toBeGreaterThan(0);
      // What the failing handler had acked is not handed over again; the rest is, once, alone.
      const expected = new Map<number, number>();
      for (const c of calls) for (const n of c) expected.set(n, 1);
      for (const c of failed) for (const n of c.slice(1)) expected.set(n, 2);
      const counts = new Map<number, number>();
      for (const n of calls.flat()) counts.set(n, (counts.get(n) ?? 0) + 1);
      expect(counts).toEqual(expected);
      expect(lines.filter((l) => l.msg.startsWith('poison'))).toEqual([]);
      expect(lines.filter((l) => l.msg.startsWith('batch handler failed'))).toHaveLength(failed.length);
      await expectDrained(stream, 'd');
    } finally {
      await consumer.stop();
    }
  });
});

describe.each(STREAM_ADAPTERS)('batches handled at once over %s', (_name, kind) => {
  const harness = streamsUnderTest(kind);

  it('with concurrency 3 and a partition key: several batches at once, never one key in two of them, each key in delivery order', async () => {
    const { stream, subject } = harness.nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    const published = Array.from({ length: 120 }, (_, i) => ({ key: `key-${i % 30}`, seq: i }));
    for (const m of published) await harness.streams.publish(`${subject}.x`, m, `m-${m.seq}`);

    const inFlight = new Map<string, number>(); // key → batches holding it now
    let running = 0;
    let mostAtOnce = 0;
    const sharedKeys: string[] = [];
    const seen = new Map<string, number[]>(); // key → seqs in the order handled
    const handle = async (batch: StreamMessage[]) => {
      const keys = [...new Set(batch.map((m) => (m.data as { key: string }).key))];
      for (const key of keys) {
        if (inFlight.get(key)) sharedKeys.push(key);
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      }
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((r) => setTimeout(r, 40));
      for (const m of batch) {
        const { key, seq } = m.data as { key: string; seq: number };
        seen.set(key, [...(seen.get(key) ?? []), seq]);
      }
      running -= 1;
      for (const key of keys) inFlight.set(key, inFlight.get(key)! - 1);
      for (const m of batch) m.ack();
    };
    const consumer = await harness.streams.consume(
      { stream, subjects: [`${subject}.>`], durable: 'd', batchSize: 8, concurrency: 3, partitionKey: (m) => (m.data as { key: string }).key },
      handle,
    );
    try {
      await eventually(() => expect([...seen.values()].flat().length).toBe(published.length), 15_000);
      expect(sharedKeys).toEqual([]);
      expect(mostAtOnce).toBeGreaterThan(1);
      expect(mostAtOnce).toBeLessThanOrEqual(3);
      for (const [key, seqs] of seen) expect({ key, seqs }).toEqual({ key, seqs: published.filter((m) => m.key === key).map((m) => m.seq) });
    } finally {
      await consumer.stop();
    }
  });
});
