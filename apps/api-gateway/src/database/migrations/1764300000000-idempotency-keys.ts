import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key: per account scope, the first request made with a key (its fingerprint) and, once it
 * finished, its answer, replayed for 24 hours. In PostgreSQL so every gateway replica sees every key.
 */
export class IdempotencyKeys1764300000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway.idempotency_keys (
        account_scope text NOT NULL,
        -- SHA-256 of the scope and the client's key: the key itself is never stored.
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        -- Which claim holds a running key: a stale claim taken over cannot then overwrite the new one's answer.
        claim_token uuid NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        status integer,
        -- The body exactly as sent (text, not jsonb, which would reorder its keys), sealed under a key derived
        -- from the client's Idempotency-Key (answers of creates can hold secrets): a replay repeats it byte for byte.
        body text,
        headers jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (account_scope, key),
        CHECK (state = 'running' OR (status IS NOT NULL AND body IS NOT NULL))
      )`);
    await q.query('CREATE INDEX idempotency_keys_expires_idx ON gateway.idempotency_keys (expires_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gateway.idempotency_keys');
  }
}
