import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leases from the shared GCRA buckets: a gateway replica takes a slice of several tokens in one call and spends
 * them in memory, so a busy key costs one round trip per slice instead of one per request.
 *
 * rate_limit_lease grants each bucket up to the wanted number of tokens, as many as it holds (each bucket on its
 * own: a replica keeps what one bucket granted while another refused), locking the rows in name order like
 * rate_limit_take, and returns each bucket's state after the grant (remaining, seconds to full, seconds until one
 * more token) for the RateLimit headers.
 */
export class RateLimitLeases1764560000000 implements MigrationInterface {
  name = 'RateLimitLeases1764560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION gateway.rate_limit_lease(names text[], intervals double precision[], bursts integer[], wants integer[])
      RETURNS TABLE (bucket_name text, granted integer, bucket_limit integer, remaining integer, reset_s double precision, retry_s double precision)
      LANGUAGE plpgsql AS $$
      DECLARE
        t double precision;
      BEGIN
        INSERT INTO gateway.rate_limit_buckets AS b (bucket, tat)
          SELECT n, 0 FROM unnest(names) AS n ORDER BY n
          ON CONFLICT (bucket) DO NOTHING;
        PERFORM 1 FROM gateway.rate_limit_buckets b WHERE b.bucket = ANY (names) ORDER BY b.bucket FOR UPDATE;
        t := extract(epoch FROM clock_timestamp());
        RETURN QUERY
          WITH wanted AS (
            SELECT w.name, w.iv, w.burst,
                   -- Whole tokens the bucket holds now (1e-9: float noise at the boundary), at most the wanted slice.
                   greatest(least(w.want, floor((w.burst * w.iv - (greatest(c.tat, t) - t)) / w.iv + 1e-9)), 0)::integer AS g
              FROM unnest(names, intervals, bursts, wants) AS w(name, iv, burst, want)
              JOIN gateway.rate_limit_buckets c ON c.bucket = w.name
          )
          UPDATE gateway.rate_limit_buckets b SET tat = greatest(b.tat, t) + wanted.iv * wanted.g
            FROM wanted WHERE b.bucket = wanted.name
          RETURNING b.bucket, wanted.g, wanted.burst,
                    greatest(floor((wanted.burst * wanted.iv - (greatest(b.tat, t) - t)) / wanted.iv + 1e-9), 0)::integer,
                    greatest(b.tat - t, 0),
                    greatest(greatest(b.tat, t) + wanted.iv - wanted.burst * wanted.iv - t, 0);
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION gateway.rate_limit_lease(text[], double precision[], integer[], integer[])');
  }
}
