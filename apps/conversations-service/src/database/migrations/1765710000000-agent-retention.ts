import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agents' retention setting as learnt from their integration events, one column per limit so the retention
 * sweep selects the agents with a limit and compares dates in SQL. null keeps the data (the default, also for
 * agents learnt before the setting existed).
 */
export class AgentRetention1765710000000 implements MigrationInterface {
  name = 'AgentRetention1765710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE conversations.agents
        ADD COLUMN retention_conversations_days integer CHECK (retention_conversations_days BETWEEN 1 AND 3650),
        ADD COLUMN retention_recordings_days integer CHECK (retention_recordings_days BETWEEN 1 AND 3650)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations.agents DROP COLUMN retention_conversations_days, DROP COLUMN retention_recordings_days');
  }
}
