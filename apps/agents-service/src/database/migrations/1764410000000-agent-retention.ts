import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The agent's retention setting in the read model; existing agents keep everything (no limit), its default. */
export class AgentRetention1764410000000 implements MigrationInterface {
  name = 'AgentRetention1764410000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agents.agents ADD COLUMN retention jsonb NOT NULL DEFAULT '{"conversations_days": null, "recordings_days": null}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE agents.agents DROP COLUMN retention');
  }
}
