import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The agent's privacy settings in the read model; existing agents get the settings' defaults. */
export class AgentPrivacySettings1764400000000 implements MigrationInterface {
  name = 'AgentPrivacySettings1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE agents.agents
        ADD COLUMN pii_redaction jsonb NOT NULL DEFAULT '{"enabled": false, "categories": ["phone_number", "email", "credit_card", "ssn", "iban", "date_of_birth", "postal_address", "ip_address"]}',
        ADD COLUMN store_content boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents.agents DROP COLUMN pii_redaction, DROP COLUMN store_content');
  }
}
