/**
 * Every SQL statement of the platform sync: the agent's sync stream
 * (`agent-sync-<agent id>` in agents.events, apart from the agent's own stream
 * so background progress never moves the agent's version or ETag), its
 * projection onto the agent's row (agents.platform_sync), the work table the
 * agent store fills in the transaction of every agent event, the per-agent
 * lock, and the numbers parked on a platform after their agent let them go.
 */
import { Injectable } from '@nestjs/common';
import type { VoicePlatform } from '@voice/contracts';
import { appendToStream, currentRequestId, inTransaction, readStream } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AgentState } from '../agent/agent.js';
import { queuePlatformSync } from '../agent/agent.store.js';
import type { PlatformSyncSummary } from './platform-sync.view.js';
import { AGENTS_SCHEMA } from '../database/agents-database.js';
import type { PlatformNumber } from '@voice/voice-platforms';
import { foldPlatformSync, type PlatformSyncEvent, type PlatformSyncRecord } from './platform-sync.events.js';

/** First key of the two-key advisory locks the sync takes (the second is the agent id's hash). */
const SYNC_LOCK_SPACE = 7_301;

export function syncStreamIdOf(agentId: string): string {
  return `agent-sync-${agentId}`;
}

export function isSyncStream(streamId: string): boolean {
  return streamId.startsWith('agent-sync-');
}

/** The agent whose sync stream this is. */
export function agentIdOfSyncStream(streamId: string): string {
  return streamId.slice('agent-sync-'.length);
}

export interface SyncWork {
  agent_id: string;
  wanted_version: number;
  /** Failed attempts since the agent last changed: the backoff grows with it. */
  attempt: number;
}

@Injectable()
export class PlatformSyncStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` holding the agent's sync lock, or answers `busy` at once when another process (or request)
   * holds it. The lock is a session advisory lock on a connection kept for the run: a process killed
   * mid-run loses it with its connection, so its work is taken over as soon as the row is due.
   */
  async withAgentLock<T>(agentId: string, work: () => Promise<T>): Promise<{ busy: true } | { busy: false; value: T }> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [SYNC_LOCK_SPACE, agentId]);
      if (!locked) return { busy: true };
      try {
        return { busy: false, value: await work() };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SYNC_LOCK_SPACE, agentId]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  /** The sync stream folded, with its version (for the next append's expected version). */
  async loadRecord(agentId: string): Promise<{ record: PlatformSyncRecord; version: number }> {
    const stored = await readStream(this.dataSource, AGENTS_SCHEMA, syncStreamIdOf(agentId));
    const record = foldPlatformSync(stored.map((e) => ({ type: e.type, data: e.data }) as PlatformSyncEvent));
    return { record, version: stored.at(-1)?.stream_version ?? 0 };
  }

  async work(agentId: string): Promise<SyncWork | undefined> {
    const [row] = await this.dataSource.query('SELECT agent_id, wanted_version, attempt FROM agents.platform_sync_work WHERE agent_id = $1', [agentId]);
    return row;
  }

  /**
   * Agents whose sync is due, oldest first, but for those another process is syncing right now (their lock is
   * held): otherwise every replica would take the same oldest rows and all but one would find them busy.
   * A two-key advisory lock shows in pg_locks as classid = first key, objid = second key (its bits as an oid).
   */
  async dueAgents(limit: number): Promise<string[]> {
    const rows: Array<{ agent_id: string }> = await this.dataSource.query(
      `SELECT w.agent_id FROM agents.platform_sync_work w
        WHERE w.not_before <= now()
          AND NOT EXISTS (SELECT 1 FROM pg_locks l
                           WHERE l.locktype = 'advisory' AND l.classid = $2::oid AND l.objsubid = 2
                             AND l.objid = (hashtext(w.agent_id)::bigint & 4294967295)::oid)
        ORDER BY w.not_before LIMIT $1`,
      [limit, SYNC_LOCK_SPACE],
    );
    return rows.map((r) => r.agent_id);
  }

  /**
   * Appends sync events after `expectedVersion` (WrongExpectedVersion if another run appended meanwhile) and
   * projects `summary` onto the agent's row, in one transaction. Returns the stream's new version and the
   * summary as the row now holds it (its last_reconciled_at may be a later look's), so a reply needs no re-read.
   * `queueFor`: the platform is behind the agent again (a drift was found): its sync work is queued in the same
   * transaction, so a crash before the repair leaves the repair to the worker.
   */
  async record(
    agentId: string,
    expectedVersion: number,
    events: PlatformSyncEvent[],
    summary: PlatformSyncSummary,
    queueFor?: AgentState,
  ): Promise<{ version: number; projected: PlatformSyncSummary | null }> {
    // A run started by a request carries its id (the worker's runs have none), so a create's platform calls trace back to it.
    const requestId = currentRequestId() ?? null;
    const metadata = { agent_id: agentId, request_id: requestId, correlation_id: requestId };
    return inTransaction(this.dataSource, async (runner) => {
      const version = await appendToStream(
        runner,
        AGENTS_SCHEMA,
        syncStreamIdOf(agentId),
        expectedVersion,
        events.map((e) => ({ event_id: randomUUID(), type: e.type, data: e.data, metadata })),
      );
      // A reconciliation that finds nothing records no event, only its time on the row: the later time stays.
      // Wrapped in a SELECT: TypeORM answers a bare UPDATE … RETURNING with [rows, count].
      const [projectedRow]: Array<{ platform_sync: PlatformSyncSummary | null }> = await runner.query(
        `WITH projected AS (
           UPDATE agents.agents
              SET platform_sync = jsonb_set($2::jsonb, '{last_reconciled_at}',
                    coalesce(to_jsonb(GREATEST(platform_sync->>'last_reconciled_at', $2::jsonb->>'last_reconciled_at')), 'null'::jsonb))
            WHERE id = $1
           RETURNING platform_sync)
         SELECT platform_sync FROM projected`,
        [agentId, JSON.stringify(summary)],
      );
      if (queueFor) await queuePlatformSync(runner, queueFor, 0);
      // Every id a platform ever gave the agent stays linked to it: a call's last webhooks may arrive after the
      // agent was deleted there, or moved to another platform.
      await runner.query(
        `INSERT INTO agents.platform_agent_links (platform, platform_agent_id, agent_id, account_id)
         SELECT ids.key, ids.value, a.id, a.account_id
           FROM agents.agents a, jsonb_each_text($2::jsonb->'platform_agent_ids') ids
          WHERE a.id = $1
         ON CONFLICT DO NOTHING`,
        [agentId, JSON.stringify(summary)],
      );
      return { version, projected: projectedRow?.platform_sync ?? null };
    });
  }

  /** Synced at `version`: the work is done unless the agent changed meanwhile (then it is due again at once). */
  async finished(agentId: string, version: number): Promise<void> {
    await inTransaction(this.dataSource, async (runner) => {
      await runner.query('DELETE FROM agents.platform_sync_work WHERE agent_id = $1 AND wanted_version <= $2', [agentId, version]);
      await runner.query('UPDATE agents.platform_sync_work SET attempt = 0, not_before = now() WHERE agent_id = $1', [agentId]);
    });
  }

  /** Refused for good at `version`: nothing to retry until the agent or its integration changes (both queue it again). */
  async parked(agentId: string, version: number): Promise<void> {
    await this.finished(agentId, version);
  }

  /** A transient failure at `version`: due again after `delayMs`, or at once if the agent changed meanwhile. */
  async retryLater(agentId: string, version: number, delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE agents.platform_sync_work SET attempt = attempt + 1,
         not_before = CASE WHEN wanted_version > $2 THEN now() ELSE now() + make_interval(secs => $3::double precision / 1000) END
       WHERE agent_id = $1`,
      [agentId, version, delayMs],
    );
  }

  /** An imported number given up but still registered (unbound) on the platform: a later import of it adopts it. */
  async parkNumber(accountId: string, platform: VoicePlatform, number: PlatformNumber): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO agents.parked_numbers (account_id, platform, phone_number, platform_number_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, platform, phone_number) DO UPDATE SET platform_number_id = EXCLUDED.platform_number_id, parked_at = now()`,
      [accountId, platform, number.phone_number, number.platform_number_id],
    );
  }

  /** A number the account parked on the platform, if it did. */
  async parkedNumber(accountId: string, platform: VoicePlatform, phoneNumber: string): Promise<PlatformNumber | undefined> {
    const [row]: Array<{ phone_number: string; platform_number_id: string }> = await this.dataSource.query(
      'SELECT phone_number, platform_number_id FROM agents.parked_numbers WHERE account_id = $1 AND platform = $2 AND phone_number = $3',
      [accountId, platform, phoneNumber],
    );
    return row && { phone_number: row.phone_number, platform_number_id: row.platform_number_id, purchased: false };
  }

  /** The number is an agent's again (its facts recorded it): it leaves the park. */
  async unparkNumber(accountId: string, platform: VoicePlatform, phoneNumber: string): Promise<void> {
    await this.dataSource.query('DELETE FROM agents.parked_numbers WHERE account_id = $1 AND platform = $2 AND phone_number = $3', [
      accountId,
      platform,
      phoneNumber,
    ]);
  }
}
