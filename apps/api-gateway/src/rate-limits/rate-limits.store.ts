import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../tokens.js';
import type { Grant } from './rate-limit-leases.rules.js';
import type { BucketSpec, BucketState } from './rate-limits.rules.js';

interface LeaseRow {
  bucket_name: string;
  granted: number;
  bucket_limit: number;
  remaining: number;
  reset_s: number;
  retry_s: number;
}

interface TakeRow {
  bucket_name: string;
  allowed: boolean;
  bucket_limit: number;
  remaining: number;
  reset_s: number;
  retry_s: number;
}

/** A full bucket is the same as no row: rows idle this long are deleted (their tat is at least this far in the past). */
const IDLE_SECONDS = 300;

/**
 * The shared GCRA buckets (migrations 1764400000000 and 1764560000000), the arithmetic and locks in SQL: `lease` takes
 * slices of several tokens that a replica spends in memory (rate-limit-leases.rules.ts); `take` takes one token.
 */
@Injectable()
export class RateLimitsStore {
  constructor(@Inject(DATA_SOURCE) private readonly db: DataSource) {}

  /** Takes one token from every bucket, or from none when any is empty. */
  async take(buckets: BucketSpec[]): Promise<{ allowed: boolean; states: BucketState[] }> {
    const rows = (await this.db.query(`SELECT * FROM gateway.rate_limit_take($1::text[], $2::float8[], $3::int[])`, [
      buckets.map((b) => b.name),
      buckets.map((b) => b.interval_s),
      buckets.map((b) => b.burst),
    ])) as TakeRow[];
    return {
      // No row back means a sweep deleted a (full) bucket in between: a full bucket admits.
      allowed: rows.every((r) => r.allowed),
      states: rows.map((r) => ({ name: r.bucket_name, limit: r.bucket_limit, remaining: r.remaining, reset_s: r.reset_s, retry_s: r.retry_s })),
    };
  }

  /** Takes up to `want` tokens from each bucket, as many as it holds (each on its own), in one round trip. */
  async lease(wants: Array<{ bucket: BucketSpec; want: number }>): Promise<Map<string, Grant>> {
    const rows = (await this.db.query(`SELECT * FROM gateway.rate_limit_lease($1::text[], $2::float8[], $3::int[], $4::int[])`, [
      wants.map((w) => w.bucket.name),
      wants.map((w) => w.bucket.interval_s),
      wants.map((w) => w.bucket.burst),
      wants.map((w) => w.want),
    ])) as LeaseRow[];
    return new Map(
      rows.map((r) => [
        r.bucket_name,
        { granted: r.granted, state: { name: r.bucket_name, limit: r.bucket_limit, remaining: r.remaining, reset_s: r.reset_s, retry_s: r.retry_s } },
      ]),
    );
  }

  /** Deletes buckets that have been full for a while (keys, accounts and addresses that stopped calling). */
  async sweep(): Promise<number> {
    const result = (await this.db.query(`DELETE FROM gateway.rate_limit_buckets WHERE tat < extract(epoch FROM now()) - $1`, [IDLE_SECONDS])) as [
      unknown[],
      number,
    ];
    return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
  }
}
