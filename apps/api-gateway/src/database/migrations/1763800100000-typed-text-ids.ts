import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Account and key ids become typed strings (`acct_…`, `key_…`) instead of UUIDs; existing UUIDs stay valid text. */
export class TypedTextIds1763800100000 implements MigrationInterface {
  name = 'TypedTextIds1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE gateway.api_keys DROP CONSTRAINT api_keys_account_id_fkey');
    await q.query('ALTER TABLE gateway.accounts ALTER COLUMN id TYPE text');
    await q.query('ALTER TABLE gateway.api_keys ALTER COLUMN id TYPE text, ALTER COLUMN account_id TYPE text');
    await q.query('ALTER TABLE gateway.api_keys ADD CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES gateway.accounts (id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE gateway.api_keys DROP CONSTRAINT api_keys_account_id_fkey');
    await q.query('ALTER TABLE gateway.accounts ALTER COLUMN id TYPE uuid USING id::uuid');
    await q.query('ALTER TABLE gateway.api_keys ALTER COLUMN id TYPE uuid USING id::uuid, ALTER COLUMN account_id TYPE uuid USING account_id::uuid');
    await q.query('ALTER TABLE gateway.api_keys ADD CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES gateway.accounts (id)');
  }
}
