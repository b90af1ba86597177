/**
 * Every SQL statement of the reconciliation: the scopes (account × platform) replicas take turns on, the agents of
 * a scope that are synced (the only ones compared), and the time of a look that found nothing.
 */
import { Injectable } from '@nestjs/common';
import type { VoicePlatform } from '@voice/contracts';
import { DataSource } from 'typeorm';

export interface ReconcileScope {
  account_id: string;
  platform: VoicePlatform;
  /** Listings of this scope that failed in a row. */
  attempt: number;
}

@Injectable()
export class ReconcileStore {
  constructor(private readonly dataSource: DataSource) {}

  /** At a process's start every scope is due: a restart may follow anything (a platform that forgot us included). */
  async everyScopeDueNow(): Promise<void> {
    await this.dataSource.query('UPDATE agents.platform_reconcile_scopes SET next_due_at = now() WHERE next_due_at > now()');
  }

  /**
   * Takes up to `limit` due scopes for `leaseMs`: their next_due_at moves forward in the statement that selects
   * them, rows another replica is taking are skipped, so one scope is reconciled by one replica per interval.
   * Scopes follow the integrations: new ones are added, due one interval later (their agents were just synced),
   * those of removed integrations dropped.
   */
  async takeDueScopes(limit: number, leaseMs: number): Promise<ReconcileScope[]> {
    await this.dataSource.query(
      `INSERT INTO agents.platform_reconcile_scopes (account_id, platform, next_due_at)
       SELECT account_id, platform, now() + make_interval(secs => $1::double precision / 1000) FROM agents.integrations ON CONFLICT DO NOTHING`,
      [leaseMs],
    );
    await this.dataSource.query(
      `DELETE FROM agents.platform_reconcile_scopes s
        WHERE NOT EXISTS (SELECT 1 FROM agents.integrations i WHERE i.account_id = s.account_id AND i.platform = s.platform)`,
    );
    // Wrapped in a SELECT: TypeORM answers a bare UPDATE … RETURNING with [rows, count].
    return this.dataSource.query(
      `WITH taken AS (
         UPDATE agents.platform_reconcile_scopes s SET next_due_at = now() + make_interval(secs => $2::double precision / 1000)
          WHERE (s.account_id, s.platform) IN (
            SELECT account_id, platform FROM agents.platform_reconcile_scopes
             WHERE next_due_at <= now() ORDER BY next_due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING s.account_id, s.platform, s.attempt)
       SELECT account_id, platform, attempt FROM taken`,
      [limit, leaseMs],
    );
  }

  /** The listing failed (the platform down, 429, …): due again after `delayMs`, the backoff growing. */
  async retryScope(scope: ReconcileScope, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents.platform_reconcile_scopes SET attempt = attempt + 1, next_due_at = now() + make_interval(secs => $3::double precision / 1000)
        WHERE account_id = $1 AND platform = $2`,
      [scope.account_id, scope.platform, delayMs],
    );
  }

  async scopeDone(scope: ReconcileScope): Promise<void> {
    await this.dataSource.query('UPDATE agents.platform_reconcile_scopes SET attempt = 0 WHERE account_id = $1 AND platform = $2 AND attempt <> 0', [
      scope.account_id,
      scope.platform,
    ]);
  }

  /**
   * The scope's live agents whose platform reflects their current version and that have no sync work pending:
   * the others are the sync's business (their facts are in motion).
   */
  async syncedAgents(scope: ReconcileScope): Promise<Array<{ id: string; status: 'active' | 'paused' }>> {
    return this.dataSource.query(
      `SELECT a.id, a.status FROM agents.agents a
        WHERE a.account_id = $1 AND a.voice_platform = $2 AND a.status IN ('active', 'paused')
          AND (a.platform_sync->>'synced_version')::int >= a.version
          AND NOT EXISTS (SELECT 1 FROM agents.platform_sync_work w WHERE w.agent_id = a.id)
        ORDER BY a.id`,
      [scope.account_id, scope.platform],
    );
  }

  /** Agents found as recorded: only the time of the look is kept (no event: nothing happened). */
  async markReconciled(agentIds: readonly string[], at: string): Promise<void> {
    if (agentIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE agents.agents
          SET platform_sync = jsonb_set(platform_sync, '{last_reconciled_at}', to_jsonb(GREATEST(platform_sync->>'last_reconciled_at', $2::text)))
        WHERE id = ANY($1::text[]) AND platform_sync IS NOT NULL`,
      [agentIds, at],
    );
  }
}
