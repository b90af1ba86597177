/**
 * The agent resource's `platform_sync` field, from the summary the platform
 * sync projects onto the agent's row (agents.platform_sync). Pure.
 *
 * - synced: a sync for the agent's current version (or a later one) succeeded;
 * - failed: the latest attempt at the current version was refused for good
 *   (it waits for the next change of the agent or its integration);
 * - pending otherwise: never attempted, in flight, or retrying after a
 *   transient failure (last_error then says what the last try met).
 */
import type { PlatformDriftView, PlatformSyncView, VoicePlatform } from '@voice/contracts';

export interface SyncError {
  /** Ours: invalid_platform_credentials, platform_rejected, phone_number_in_use, phone_number_unavailable, platform_unavailable, … */
  code: string;
  message: string;
  /** Our field the platform objected to, when known. */
  field?: string;
}

export interface PlatformSyncSummary {
  /** The platform's agent id on each platform that holds the agent. */
  platform_agent_ids: Partial<Record<VoicePlatform, string>>;
  synced_version: number | null;
  last_attempt_at: string | null;
  /** The latest failure since the last success. */
  last_failure: { error: SyncError; permanent: boolean; attempted_version: number } | null;
  /** The reconciliation's last look at the platform (absent in summaries written before it existed). */
  last_reconciled_at?: string | null;
  last_drift?: PlatformDriftView | null;
}

export const NO_SYNC_SUMMARY: PlatformSyncSummary = {
  platform_agent_ids: {}, synced_version: null, last_attempt_at: null, last_failure: null, last_reconciled_at: null, last_drift: null,
};

export function platformSyncViewOf(summary: PlatformSyncSummary | null, agent: { voice_platform: VoicePlatform; version: number }): PlatformSyncView {
  const s = summary ?? NO_SYNC_SUMMARY;
  const synced = s.synced_version !== null && s.synced_version >= agent.version;
  const last = s.last_failure;
  const failed = !synced && last !== null && last.permanent && last.attempted_version >= agent.version;
  return {
    state: synced ? 'synced' : failed ? 'failed' : 'pending',
    platform_agent_id: s.platform_agent_ids[agent.voice_platform] ?? null,
    synced_version: s.synced_version,
    last_attempt_at: s.last_attempt_at,
    last_error: synced ? null : last?.error ?? null,
    last_reconciled_at: s.last_reconciled_at ?? null,
    last_drift: s.last_drift ?? null,
  };
}
