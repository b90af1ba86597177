import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The background reconciliation compares each account's agents with each of its platforms (one listing per
 * account and platform, a "scope"). platform_reconcile_scopes says when a scope is next due; a replica takes due
 * scopes by moving next_due_at forward in the statement that selects them (FOR UPDATE SKIP LOCKED), so replicas
 * share the scopes and never take the same one in one interval. `attempt` counts listings that failed in a row
 * (the backoff grows with it).
 */
export class PlatformReconcile1764300000000 implements MigrationInterface {
  name = 'PlatformReconcile1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents.platform_reconcile_scopes (
        account_id text NOT NULL,
        platform text NOT NULL,
        next_due_at timestamptz NOT NULL DEFAULT now(),
        attempt integer NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, platform)
      )`);
    await q.query(`CREATE INDEX platform_reconcile_scopes_due_idx ON agents.platform_reconcile_scopes (next_due_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agents.platform_reconcile_scopes');
  }
}
