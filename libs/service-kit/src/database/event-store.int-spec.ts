import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource, QueryRunner } from 'typeorm';
import { inTransaction, openDatabase } from './database.js';
import { appendToStream, DuplicateEvent, eventStoreDdl, readCommittedAfter, readStream, WrongExpectedVersion } from './event-store.js';

class CreateProbeEventStore1700000000000 {
  name = 'CreateProbeEventStore1700000000000';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of eventStoreDdl('probe')) await q.query(sql);
  }
  async down(): Promise<void> {}
}

const event = (event_id: string, n = 1) => ({ event_id, type: 'ProbeHappened', data: { n }, metadata: { request_id: 'r-1' } });

/** The event table's guarantees, on a real PostgreSQL: what every service's persistence relies on. */
describe('event store', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('eventstore');
    dataSource = await openDatabase({ url: db.url, schema: 'probe', migrations: [CreateProbeEventStore1700000000000] });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('appends in version order and reads the stream back with data and metadata', async () => {
    const version = await inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-1', 0, [event('e-1', 1), event('e-2', 2)]));
    expect(version).toBe(2);
    const stored = await readStream(dataSource, 'probe', 's-1');
    expect(stored.map((e) => [e.stream_version, e.event_id, e.data.n, e.metadata.request_id])).toEqual([
      [1, 'e-1', 1, 'r-1'],
      [2, 'e-2', 2, 'r-1'],
    ]);
    expect(stored[0].transaction_id).toBe(stored[1].transaction_id);
  });

  it('optimistic concurrency: of two writers expecting the same version, exactly one wins', async () => {
    await inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-2', 0, [event('e-3')]));
    const results = await Promise.allSettled(
      ['e-4', 'e-5'].map((id) => inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-2', 1, [event(id)]))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [lost] = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(lost.reason).toBeInstanceOf(WrongExpectedVersion);
    expect((await readStream(dataSource, 'probe', 's-2')).map((e) => e.stream_version)).toEqual([1, 2]);
  });

  it('a re-append of a known event id is refused (even on another stream) and leaves nothing behind', async () => {
    await inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-3', 0, [event('e-6')]));
    await expect(inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-3', 1, [event('e-6')]))).rejects.toBeInstanceOf(DuplicateEvent);
    await expect(inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-4', 0, [event('e-7'), event('e-6')]))).rejects.toBeInstanceOf(
      DuplicateEvent,
    );
    expect(await readStream(dataSource, 'probe', 's-3')).toHaveLength(1);
    expect(await readStream(dataSource, 'probe', 's-4')).toHaveLength(0);
  });

  it('a checkpointed reader hands out a backlog in position order, numerically, batch after batch', async () => {
    const start = await readCommittedAfter(dataSource, 'probe', { transaction_id: '0', global_position: '0' }, 100_000).then((rows) => rows.at(-1)!);
    // Positions cross digit boundaries (…99 → 100…), where text order differs from numeric order.
    const ids = Array.from({ length: 250 }, (_, i) => `backlog-${i}`);
    await inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-backlog', 0, ids.map((id) => event(id))));
    const read: string[] = [];
    // The reader holds back everything from the oldest transaction still open on the server, in any database: a
    // parallel test's open transaction delays the backlog (it must), so an empty batch is waited out for a while.
    // For the same reason `start` may sit before events of the tests above that were held back when it was read:
    // they come first, and only this backlog's events are compared.
    const ofBacklog = (events: { event_id: string }[]) => events.map((e) => e.event_id).filter((id) => id.startsWith('backlog-'));
    const deadline = Date.now() + 30_000;
    for (let after = start; read.length < ids.length && Date.now() < deadline; ) {
      const batch = await readCommittedAfter(dataSource, 'probe', after, 40);
      if (batch.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      read.push(...ofBacklog(batch));
      after = batch.at(-1)!;
    }
    expect(ofBacklog(await readCommittedAfter(dataSource, 'probe', start, 1000))).toHaveLength(ids.length);
    expect(read).toEqual(ids);
  });

  it('a checkpointed reader never passes a transaction still in flight, so a late commit is not skipped', async () => {
    const start = { transaction_id: '0', global_position: '0' };
    const seen = (await readCommittedAfter(dataSource, 'probe', start, 1000)).map((e) => e.event_id);
    const last = await readCommittedAfter(dataSource, 'probe', start, 1000).then((rows) => rows.at(-1)!);

    // An early transaction appends and stays open; a later one appends and commits first.
    const early = dataSource.createQueryRunner();
    await early.connect();
    await early.startTransaction();
    await appendToStream(early, 'probe', 's-late', 0, [event('late-commit')]);
    await inTransaction(dataSource, (r) => appendToStream(r, 'probe', 's-early', 0, [event('early-commit')]));

    // While the early transaction is open, neither row may be handed out: the later one would move the
    // checkpoint past the early one's position.
    const during = await readCommittedAfter(dataSource, 'probe', last, 1000);
    expect(during.map((e) => e.event_id)).toEqual([]);

    await early.commitTransaction();
    await early.release();
    // Both, once no older transaction on the server (a parallel test's) holds them back.
    let after = await readCommittedAfter(dataSource, 'probe', last, 1000);
    for (const deadline = Date.now() + 30_000; after.length < 2 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await readCommittedAfter(dataSource, 'probe', last, 1000);
    }
    expect(after.map((e) => e.event_id).sort()).toEqual(['early-commit', 'late-commit']);
    expect(seen).not.toContain('late-commit');
  });
});
