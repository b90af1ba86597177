import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's credentials for one voice platform. The API key and webhook
 * secret are stored only sealed by the SecretBox (INTEGRATIONS_KEY), bound to
 * `<account_id>/<platform>/api_key` and `…/webhook_secret`, so a value copied
 * into another row does not open. Hints (last four characters) are kept apart
 * so reading an integration never needs the key.
 */
export class CreateIntegrations1764000000000 implements MigrationInterface {
  name = 'CreateIntegrations1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents.integrations (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        platform text NOT NULL,
        base_url text NOT NULL,
        api_key_sealed text NOT NULL,
        webhook_secret_sealed text NOT NULL,
        api_key_hint text NOT NULL,
        webhook_secret_hint text NOT NULL,
        status text NOT NULL CHECK (status IN ('verified', 'invalid_credentials', 'unreachable', 'unverified')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT integrations_account_platform_key UNIQUE (account_id, platform)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agents.integrations');
  }
}
