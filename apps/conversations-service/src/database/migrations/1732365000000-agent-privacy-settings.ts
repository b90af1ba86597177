import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agents' privacy settings as learnt from their integration events, read when call events are recorded.
 * Agents learnt before the settings existed get their defaults (no redaction, content kept).
 */
export class AgentPrivacySettings1732365000000 implements MigrationInterface {
  name = 'AgentPrivacySettings1732365000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE conversations.agents
        ADD COLUMN pii_redaction jsonb NOT NULL DEFAULT '{"enabled": false, "categories": ["phone_number", "email", "credit_card", "ssn", "iban", "date_of_birth", "postal_address", "ip_address"]}',
        ADD COLUMN store_content boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations.agents DROP COLUMN pii_redaction, DROP COLUMN store_content');
  }
}
