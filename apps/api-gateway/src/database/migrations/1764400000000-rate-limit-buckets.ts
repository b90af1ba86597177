import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit buckets shared by every gateway replica (per-process buckets would multiply the limit by the
 * replica count). GCRA keeps one number per bucket, its theoretical arrival time (epoch seconds): a bucket
 * whose tat is in the past is full. UNLOGGED: written on every request, and losing it in a crash only
 * refills every bucket, so it skips the WAL.
 *
 * rate_limit_take takes one token from each bucket, all or none, in one call (one round trip): it creates
 * missing rows, locks them in name order (two requests sharing buckets never deadlock), decides with
 * clock_timestamp() read after the locks, and returns each bucket's state for the RateLimit headers.
 */
export class RateLimitBuckets1764400000000 implements MigrationInterface {
  name = 'RateLimitBuckets1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNLOGGED TABLE gateway.rate_limit_buckets (bucket text PRIMARY KEY, tat double precision NOT NULL)`);
    await q.query(`
      CREATE FUNCTION gateway.rate_limit_take(names text[], intervals double precision[], bursts integer[])
      RETURNS TABLE (bucket_name text, allowed boolean, bucket_limit integer, remaining integer, reset_s double precision, retry_s double precision)
      LANGUAGE plpgsql AS $$
      DECLARE
        t double precision;
        ok boolean;
      BEGIN
        INSERT INTO gateway.rate_limit_buckets AS b (bucket, tat)
          SELECT n, 0 FROM unnest(names) AS n ORDER BY n
          ON CONFLICT (bucket) DO NOTHING;
        PERFORM 1 FROM gateway.rate_limit_buckets b WHERE b.bucket = ANY (names) ORDER BY b.bucket FOR UPDATE;
        t := extract(epoch FROM clock_timestamp());
        -- Admitted when, after adding one interval, the debt is within the burst (1e-9: float noise at the boundary).
        SELECT coalesce(bool_and(greatest(b.tat, t) + p.iv - t <= p.burst * p.iv + 1e-9), true) INTO ok
          FROM gateway.rate_limit_buckets b JOIN unnest(names, intervals, bursts) AS p(name, iv, burst) ON p.name = b.bucket;
        IF ok THEN
          UPDATE gateway.rate_limit_buckets b SET tat = greatest(b.tat, t) + p.iv
            FROM unnest(names, intervals, bursts) AS p(name, iv, burst) WHERE p.name = b.bucket;
        END IF;
        RETURN QUERY
          SELECT b.bucket, ok, p.burst,
                 greatest(floor((p.burst * p.iv - (greatest(b.tat, t) - t)) / p.iv + 1e-9), 0)::integer,
                 greatest(b.tat - t, 0),
                 greatest(greatest(b.tat, t) + p.iv - p.burst * p.iv - t, 0)
            FROM gateway.rate_limit_buckets b JOIN unnest(names, intervals, bursts) AS p(name, iv, burst) ON p.name = b.bucket;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION gateway.rate_limit_take(text[], double precision[], integer[])');
    await q.query('DROP TABLE gateway.rate_limit_buckets');
  }
}
