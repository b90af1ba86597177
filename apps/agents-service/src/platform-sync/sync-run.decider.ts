/**
 * What one sync run decides around the platform calls, pure (the handler loads, the executor calls the
 * platforms, the store records): whether a drift repair is still due, which events record each step and the
 * drift, whether a number the platform sold becomes the agent's, and how the run settles — the events to
 * append, what happens to the work row, what the caller is told.
 */
import type { VoicePlatform } from '@voice/contracts';
import type { AgentState } from '../agent/agent.js';
import type { DriftRepair } from '../reconcile-platforms/drift.decider.js';
import type { PlatformSyncStep, SyncFacts } from './platform-sync.decider.js';
import { platformFactsData, PlatformSyncEventTypes, type OpenDrift, type PlatformSyncEvent, type PlatformSyncRecord, type SyncError } from './platform-sync.events.js';

/** A drift the reconciliation found, to repair on `platform` (the agent's). */
export interface DriftRepairRequest extends DriftRepair {
  platform: VoicePlatform;
}

/** What the executor ended with (platform-sync.executor.ts's outcome, as far as the settlement reads it). */
export type ExecutedSync =
  | { kind: 'synced'; facts: SyncFacts }
  | { kind: 'retry'; step: PlatformSyncStep; error: SyncError; retryAfterMs: number }
  | { kind: 'failed'; step: PlatformSyncStep; error: SyncError };

/**
 * How a run ends: `events` to append; then the work row is done when synced or failed for good (nothing to
 * retry until the agent or its integration changes) and due again after `retryAfterMs` on a transient failure;
 * `refusedCredentials`: the platform whose key was refused (its integration is marked so).
 */
export type Settlement =
  | { kind: 'synced'; events: PlatformSyncEvent[] }
  | { kind: 'failed'; events: PlatformSyncEvent[]; error: SyncError; step: PlatformSyncStep; refusedCredentials?: VoicePlatform }
  | { kind: 'retry'; events: PlatformSyncEvent[]; error: SyncError; retryAfterMs: number };

/**
 * A drift repair runs only on what the drift was found against: the agent still live on that platform, no sync
 * work pending (that run sets the platform to ours anyway), and nothing recorded on its sync stream since.
 */
export function repairIsStale(repair: DriftRepairRequest, agent: AgentState, workPending: boolean, syncVersion?: number): boolean {
  if (workPending || agent.status === 'deleted' || agent.voice_platform !== repair.platform) return true;
  return syncVersion !== undefined && syncVersion !== repair.sync_version;
}

/** The drift as an event: the facts become what the platform holds (and the agent's sync work is queued again). */
export function driftFoundEvent(agent: AgentState, repair: DriftRepairRequest, at: string): PlatformSyncEvent {
  const data = {
    ...platformFactsData({ [repair.platform]: repair.facts }, repair.platform),
    drift: repair.drift, recorded_platform_agent_id: repair.recorded_platform_agent_id, phone_number: agent.phone_number,
    replace_number: repair.replace_number, attempted_version: agent.version, at,
  };
  return { type: PlatformSyncEventTypes.driftFound, data };
}

/** A step done: its facts, recorded before the next platform call. */
export function progressedEvent(facts: SyncFacts, step: PlatformSyncStep, agent: AgentState, at: string): PlatformSyncEvent {
  return { type: PlatformSyncEventTypes.progressed, data: { ...platformFactsData(facts, step.platform), attempted_version: agent.version, at } };
}

/** The number a step acquired (imported, bought or adopted from the park), as the facts after it record it. */
export function acquiredNumber(facts: SyncFacts, step: PlatformSyncStep): string | undefined {
  return step.type === 'acquire_number' ? facts[step.platform]?.number?.phone_number : undefined;
}

/**
 * An acquired number becomes the agent's when the agent had none (the platform sold it one), or in place of
 * `replacing`, a bought number the platform lost; otherwise the agent keeps its own.
 */
export function numberToAssign(acquired: string, agent: AgentState, replacing: string | undefined): { phone_number: string; replacing?: string } | undefined {
  if (agent.phone_number === null) return { phone_number: acquired };
  if (replacing !== undefined) return { phone_number: acquired, replacing };
  return undefined;
}

/** `failedBefore`: the failed tries at this version of the agent before this run (the work row's count). */
export function settle(agent: AgentState, outcome: ExecutedSync, record: PlatformSyncRecord, at: string, failedBefore?: number): Settlement {
  if (outcome.kind === 'synced') {
    const data = { ...platformFactsData(outcome.facts, agent.voice_platform), synced_version: agent.version, at };
    // The platform holds the agent as ours again: an open drift is repaired (by this run or the one before it).
    const repaired: PlatformSyncEvent[] = record.open_drift ? [repairedEvent(record.open_drift, data.platform_agent_id, agent, at)] : [];
    return { kind: 'synced', events: [...repaired, { type: PlatformSyncEventTypes.synced, data }] };
  }
  const permanent = outcome.kind === 'failed';
  const last = record.failures.at(-1);
  // A retry that meets the same failure again is not news: the summary's last_attempt_at moves, the stream does not grow.
  const repeated = last !== undefined && last.error.code === outcome.error.code && last.attempted_version === agent.version && last.permanent === permanent;
  const failure: PlatformSyncEvent = {
    type: PlatformSyncEventTypes.failed,
    data: {
      platform: outcome.step.platform, error: outcome.error, permanent, attempted_version: agent.version, at,
      ...(failedBefore !== undefined ? { attempt: failedBefore + 1 } : {}),
    },
  };
  const events = repeated ? [] : [failure];
  if (outcome.kind === 'retry') return { kind: 'retry', events, error: outcome.error, retryAfterMs: outcome.retryAfterMs };
  const refused = outcome.error.code === 'invalid_platform_credentials' ? { refusedCredentials: outcome.step.platform } : {};
  return { kind: 'failed', events, error: outcome.error, step: outcome.step, ...refused };
}

function repairedEvent(open: OpenDrift, platformAgentId: string | null, agent: AgentState, at: string): PlatformSyncEvent {
  const { platform, drift, found_at, platform_agent_id_before, phone_number_before } = open;
  return {
    type: PlatformSyncEventTypes.driftRepaired,
    data: {
      platform, drift, found_at, platform_agent_id_before, platform_agent_id: platformAgentId, phone_number_before,
      phone_number_after: agent.phone_number, synced_version: agent.version, at,
    },
  };
}
