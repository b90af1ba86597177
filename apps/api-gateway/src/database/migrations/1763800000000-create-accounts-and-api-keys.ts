import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccountsAndApiKeys1763800000000 implements MigrationInterface {
  name = 'CreateAccountsAndApiKeys1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gateway.accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL,
        agent_limit integer NOT NULL CHECK (agent_limit >= 0),
        voice_platforms text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE gateway.api_keys (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES gateway.accounts (id),
        name text,
        prefix text NOT NULL,
        secret_sha256 bytea NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        last_used_at timestamptz,
        CONSTRAINT api_keys_secret_sha256_key UNIQUE (secret_sha256)
      )`);
    await q.query(`CREATE INDEX api_keys_account_idx ON gateway.api_keys (account_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE gateway.api_keys');
    await q.query('DROP TABLE gateway.accounts');
  }
}
