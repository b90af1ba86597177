import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../database/gateway-database.js';
import type { BucketSpec } from './rate-limits.rules.js';
import { RateLimitsStore } from './rate-limits.store.js';

/** The GCRA functions on a real database: exact counts, all-or-none across buckets, leased slices, concurrency, the sweep. */
describe('rate-limit buckets (gateway.rate_limit_take and rate_limit_lease)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: RateLimitsStore;
  let n = 0;
  // One token a minute: nothing refills while a test runs.
  const bucket = (burst: number): BucketSpec => ({ name: `b${++n}`, interval_s: 60, burst });

  beforeAll(async () => {
    db = await createTestDatabase('rate-limits');
    dataSource = await openGatewayDatabase(db.url);
    store = new RateLimitsStore(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('admits exactly the burst, counting down, then refuses with the time to the next token', async () => {
    const b = bucket(3);
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await store.take([b]));
    expect(takes.map((t) => [t.allowed, t.states[0].remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0]]);
    expect(takes[3].states[0].retry_s).toBeGreaterThan(59);
    expect(takes[3].states[0].retry_s).toBeLessThanOrEqual(60);
    expect(takes[2].states[0].reset_s).toBeGreaterThan(179);
    expect(takes[0].states[0].limit).toBe(3);
  });

  it('takes from every bucket or from none: a request the account refuses costs the key nothing', async () => {
    const key = bucket(5);
    const account = bucket(1);
    expect((await store.take([key, account])).allowed).toBe(true);
    const refused = await store.take([key, account]);
    expect(refused.allowed).toBe(false);
    expect(Object.fromEntries(refused.states.map((s) => [s.name, s.remaining]))).toEqual({ [key.name]: 4, [account.name]: 0 });
    expect((await store.take([key])).states[0].remaining).toBe(3);
  });

  it('concurrent takes on the same buckets (in any order) neither deadlock nor over-admit', async () => {
    const a = bucket(25);
    const b = bucket(1000);
    const takes = await Promise.all(Array.from({ length: 60 }, (_, i) => store.take(i % 2 ? [a, b] : [b, a])));
    expect(takes.filter((t) => t.allowed)).toHaveLength(25);
  });

  it('a lease grants up to the slice wanted, as many as each bucket holds, each bucket on its own', async () => {
    const key = bucket(10);
    const account = bucket(4);
    const first = await store.lease([
      { bucket: key, want: 3 },
      { bucket: account, want: 3 },
    ]);
    expect([first.get(key.name)?.granted, first.get(key.name)?.state.remaining, first.get(account.name)?.state.remaining]).toEqual([3, 7, 1]);
    const second = await store.lease([
      { bucket: key, want: 3 },
      { bucket: account, want: 3 },
    ]);
    // The account had one token left: it grants that one; the key is not held back by it.
    expect([second.get(key.name)?.granted, second.get(account.name)?.granted]).toEqual([3, 1]);
    const refused = (await store.lease([{ bucket: account, want: 1 }])).get(account.name)!;
    expect([refused.granted, refused.state.remaining]).toEqual([0, 0]);
    expect(refused.state.retry_s).toBeGreaterThan(59);
    expect(refused.state.reset_s).toBeGreaterThan(239);
    // Leases and single takes spend from the same buckets.
    expect((await store.take([key])).states[0].remaining).toBe(3);
  });

  it('concurrent leases never grant more than the bucket holds', async () => {
    const b = bucket(100);
    const grants = await Promise.all(Array.from({ length: 30 }, () => store.lease([{ bucket: b, want: 7 }])));
    expect(grants.reduce((sum, g) => sum + g.get(b.name)!.granted, 0)).toBe(100);
  });

  it('the sweep deletes only buckets that have been full for a while', async () => {
    const idle = bucket(1);
    const busy = bucket(1);
    await store.take([idle]);
    await store.take([busy]);
    await dataSource.query(`UPDATE gateway.rate_limit_buckets SET tat = extract(epoch FROM now()) - 3600 WHERE bucket = $1`, [idle.name]);
    expect(await store.sweep()).toBeGreaterThanOrEqual(1);
    const left = (await dataSource.query(`SELECT bucket FROM gateway.rate_limit_buckets WHERE bucket = ANY($1)`, [[idle.name, busy.name]])) as Array<{ bucket: string }>;
    expect(left.map((r) => r.bucket)).toEqual([busy.name]);
  });
});
