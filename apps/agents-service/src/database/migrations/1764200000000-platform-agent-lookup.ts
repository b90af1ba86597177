import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries name the platform's id of the agent: find ours by it, within the account the delivery
 * was signed for. A link outlives the platform agent (deleted there, or the agent moved to the other
 * platform), since a call's last webhooks can arrive after that. Filled from the sync's summaries.
 */
export class PlatformAgentLookup1764200000000 implements MigrationInterface {
  name = 'PlatformAgentLookup1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents.platform_agent_links (
        platform text NOT NULL,
        platform_agent_id text NOT NULL,
        agent_id text NOT NULL,
        account_id text NOT NULL,
        linked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (platform, platform_agent_id)
      )`);
    await q.query(`
      INSERT INTO agents.platform_agent_links (platform, platform_agent_id, agent_id, account_id)
      SELECT ids.key, ids.value, a.id, a.account_id
        FROM agents.agents a, jsonb_each_text(a.platform_sync->'platform_agent_ids') ids
       WHERE a.platform_sync IS NOT NULL
      ON CONFLICT DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agents.platform_agent_links');
  }
}
