import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What keeping agents live on their voice platforms needs:
 * - integrations.webhook_url: where the platform must deliver this integration's calls (from the gateway's
 *   PUBLIC_URL at the PUT), sent to the platform with every agent;
 * - agents.platform_sync: the read model of the agent's sync stream (`agent-sync-<id>`), so GET and the list
 *   show `platform_sync` without folding a stream;
 * - agents.phone_number may be null: a number to buy is pending while the platform cannot be reached;
 * - platform_sync_work: one row per agent whose platforms are behind its stream, written in the same
 *   transaction as the agent's events (the outbox of the sync); replicas take rows under a per-agent advisory
 *   lock, so one agent is never synced by two processes at once, and a killed process's lock dies with its
 *   connection;
 * - parked_numbers: imported numbers an agent gave up, still registered (unbound) on the platform, so a later
 *   agent of the account importing the same E.164 adopts them instead of being told they are in use.
 */
export class PlatformSync1764100000000 implements MigrationInterface {
  name = 'PlatformSync1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agents.integrations ADD COLUMN webhook_url text`);
    await q.query(`ALTER TABLE agents.agents ADD COLUMN platform_sync jsonb`);
    await q.query(`ALTER TABLE agents.agents ALTER COLUMN phone_number DROP NOT NULL`);
    await q.query(`
      CREATE TABLE agents.platform_sync_work (
        agent_id text PRIMARY KEY,
        account_id text NOT NULL,
        wanted_version integer NOT NULL,
        attempt integer NOT NULL DEFAULT 0,
        not_before timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX platform_sync_work_due_idx ON agents.platform_sync_work (not_before)`);
    await q.query(`
      CREATE TABLE agents.parked_numbers (
        account_id text NOT NULL,
        platform text NOT NULL,
        phone_number text NOT NULL,
        platform_number_id text NOT NULL,
        parked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, platform, phone_number)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agents.parked_numbers, agents.platform_sync_work');
    await q.query('ALTER TABLE agents.agents DROP COLUMN platform_sync');
    await q.query('ALTER TABLE agents.integrations DROP COLUMN webhook_url');
  }
}
