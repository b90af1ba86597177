/**
 * Events recording platform-sync progress on the agent stream, and the
 * agent resource's `platform_sync` field folded from them. Pure.
 *
 * - AgentPlatformSyncProgressed: the facts of one platform after a step (so a
 *   crash mid-plan loses at most the step in flight).
 * - AgentSyncedToPlatform: the plan for `synced_version` of the agent came out
 *   empty: the platform holds the agent as that version wants it.
 * - AgentSyncFailed: an attempt stopped; `permanent` failures wait for a change
 *   (new credentials, another voice, …), the others are retried.
 * - AgentPlatformDriftFound: the reconciliation read the platform and found it
 *   holding the agent otherwise than recorded (deleted, edited or forgotten
 *   there): the facts become what the platform holds, so the next plan sets it
 *   back; the agent is no longer synced until it is.
 * - AgentPlatformDriftRepaired: that plan ran: the platform holds the agent as
 *   we want it again. Self-contained (what was wrong, the platform ids and
 *   numbers before and after), so an outbound "agent drift repaired" event can
 *   be made from it alone (`driftRepairedNotice`).
 */
import type { PlatformDriftView, PlatformNumberDrift, PlatformSyncView, VoicePlatform } from '@voice/contracts';
import { platformSyncViewOf, type PlatformSyncSummary, type SyncError } from './platform-sync.view.js';
import type { PlatformAgentSpec } from '@voice/voice-platforms';

export type { SyncError } from './platform-sync.view.js';
import type { NumberFacts, SyncFacts } from './platform-sync.decider.js';

export const PlatformSyncEventTypes = {
  progressed: 'AgentPlatformSyncProgressed',
  synced: 'AgentSyncedToPlatform',
  failed: 'AgentSyncFailed',
  driftFound: 'AgentPlatformDriftFound',
  driftRepaired: 'AgentPlatformDriftRepaired',
} as const;

/** What the reconciliation found different on the agent's platform. */
export interface PlatformDrift {
  agent_missing: boolean;
  number: PlatformNumberDrift | null;
  /** Our field names (name, system_prompt, …). */
  changed_fields: string[];
}

export interface PlatformFactsData {
  platform: VoicePlatform;
  platform_agent_id: string | null;
  number: NumberFacts | null;
  /** The spec last sent to the platform. */
  spec: PlatformAgentSpec | null;
}

export interface AgentPlatformSyncProgressed {
  type: typeof PlatformSyncEventTypes.progressed;
  data: PlatformFactsData & { attempted_version: number; at: string };
}

export interface AgentSyncedToPlatform {
  type: typeof PlatformSyncEventTypes.synced;
  data: PlatformFactsData & { synced_version: number; at: string };
}

export interface AgentSyncFailed {
  type: typeof PlatformSyncEventTypes.failed;
  /** `attempt`: which try at `attempted_version` (1 the first); absent from failures recorded before it was kept. */
  data: { platform: VoicePlatform; error: SyncError; permanent: boolean; attempted_version: number; at: string; attempt?: number };
}

export interface AgentPlatformDriftFound {
  type: typeof PlatformSyncEventTypes.driftFound;
  /**
   * The platform's facts as the platform holds them now; `phone_number`: the agent's number when found;
   * `replace_number`: it was bought and the platform lost it, so a new one is to be bought in its place.
   */
  data: PlatformFactsData & {
    drift: PlatformDrift;
    /** Our platform agent as recorded before (gone, when agent_missing). */
    recorded_platform_agent_id: string | null;
    phone_number: string | null;
    replace_number: boolean;
    attempted_version: number;
    at: string;
  };
}

export interface AgentPlatformDriftRepaired {
  type: typeof PlatformSyncEventTypes.driftRepaired;
  data: {
    platform: VoicePlatform;
    drift: PlatformDrift;
    found_at: string;
    platform_agent_id_before: string | null;
    platform_agent_id: string | null;
    phone_number_before: string | null;
    phone_number_after: string | null;
    synced_version: number;
    at: string;
  };
}

export type PlatformSyncEvent = AgentPlatformSyncProgressed | AgentSyncedToPlatform | AgentSyncFailed | AgentPlatformDriftFound | AgentPlatformDriftRepaired;

/** What the events say so far. */
export interface PlatformSyncRecord {
  facts: SyncFacts;
  synced_version: number | null;
  synced_at: string | null;
  /** Failures since the last successful sync, oldest first. */
  failures: AgentSyncFailed['data'][];
  /** The last drift found or repaired (a reconciliation that finds nothing records no event: the row keeps its time). */
  last_reconciled_at: string | null;
  last_drift: PlatformDriftView | null;
  /** A drift found and not yet repaired: whichever run syncs next completes it (and buys in place of a lost bought number). */
  open_drift: OpenDrift | null;
}

export interface OpenDrift {
  platform: VoicePlatform;
  drift: PlatformDrift;
  found_at: string;
  platform_agent_id_before: string | null;
  phone_number_before: string | null;
  replace_number: boolean;
}

export const NO_PLATFORM_SYNC: PlatformSyncRecord = {
  facts: {}, synced_version: null, synced_at: null, failures: [], last_reconciled_at: null, last_drift: null, open_drift: null,
};

/** The facts with one platform's replaced by what an event recorded. */
export function applyFacts(facts: SyncFacts, data: PlatformFactsData): SyncFacts {
  const next: SyncFacts = { ...facts };
  if (data.platform_agent_id === null && data.number === null && data.spec === null) delete next[data.platform];
  else next[data.platform] = { platform_agent_id: data.platform_agent_id, spec: data.spec, number: data.number };
  return next;
}

/** The event data recording one platform's facts. */
export function platformFactsData(facts: SyncFacts, platform: VoicePlatform): PlatformFactsData {
  const recorded = facts[platform];
  return { platform, platform_agent_id: recorded?.platform_agent_id ?? null, number: recorded?.number ?? null, spec: recorded?.spec ?? null };
}

export function evolvePlatformSync(record: PlatformSyncRecord, event: PlatformSyncEvent): PlatformSyncRecord {
  switch (event.type) {
    case PlatformSyncEventTypes.progressed:
      return { ...record, facts: applyFacts(record.facts, event.data) };
    case PlatformSyncEventTypes.synced:
      return { ...record, facts: applyFacts(record.facts, event.data), synced_version: event.data.synced_version, synced_at: event.data.at, failures: [] };
    case PlatformSyncEventTypes.failed:
      return { ...record, failures: [...record.failures, event.data] };
    case PlatformSyncEventTypes.driftFound: {
      const { drift, at, platform, phone_number } = event.data;
      const last_drift: PlatformDriftView = { found_at: at, repaired_at: null, platform, ...drift, phone_number_before: phone_number, phone_number_after: null };
      const open_drift: OpenDrift = {
        platform, drift, found_at: at, platform_agent_id_before: event.data.recorded_platform_agent_id, phone_number_before: phone_number,
        replace_number: event.data.replace_number,
      };
      return { ...record, facts: applyFacts(record.facts, event.data), synced_version: null, last_reconciled_at: at, last_drift, open_drift };
    }
    case PlatformSyncEventTypes.driftRepaired: {
      const { at, phone_number_after } = event.data;
      const last_drift = record.last_drift && { ...record.last_drift, repaired_at: at, phone_number_after };
      return { ...record, last_reconciled_at: at, last_drift, open_drift: null };
    }
  }
}

/**
 * The agent's number when it is a bought number the platform lost (an open drift says so) and still the agent's:
 * a new one is to be bought in its place. Undefined otherwise (an imported number is imported again).
 */
export function lostNumberToReplace(record: PlatformSyncRecord, agentPhoneNumber: string | null): string | undefined {
  const open = record.open_drift;
  if (!open?.replace_number || open.phone_number_before === null || open.phone_number_before !== agentPhoneNumber) return undefined;
  return open.phone_number_before;
}

/**
 * The payload of an outbound "agent drift repaired" event, from the recorded sync event alone (the relay skips the
 * sync streams today; this is what it would publish for them): undefined for every other sync event.
 */
export function driftRepairedNotice(agentId: string, event: PlatformSyncEvent): ({ agent_id: string } & AgentPlatformDriftRepaired['data']) | undefined {
  return event.type === PlatformSyncEventTypes.driftRepaired ? { agent_id: agentId, ...event.data } : undefined;
}

export function foldPlatformSync(events: readonly PlatformSyncEvent[]): PlatformSyncRecord {
  return events.reduce(evolvePlatformSync, NO_PLATFORM_SYNC);
}

/** What the agent's row keeps of the record (agents.platform_sync), enough for the resource's field. */
export function summaryOf(record: PlatformSyncRecord): PlatformSyncSummary {
  const last = record.failures.at(-1) ?? null;
  const platform_agent_ids: PlatformSyncSummary['platform_agent_ids'] = {};
  for (const [platform, facts] of Object.entries(record.facts) as Array<[VoicePlatform, { platform_agent_id: string | null }]>) {
    if (facts.platform_agent_id !== null) platform_agent_ids[platform] = facts.platform_agent_id;
  }
  const lastAttemptAt = [record.synced_at, last?.at ?? null].filter((at): at is string => at !== null).sort().at(-1) ?? null;
  return {
    platform_agent_ids,
    synced_version: record.synced_version,
    last_attempt_at: lastAttemptAt,
    last_failure: last && { error: last.error, permanent: last.permanent, attempted_version: last.attempted_version },
    last_reconciled_at: record.last_reconciled_at,
    last_drift: record.last_drift,
  };
}

/** The agent resource's `platform_sync` field: `agent` is the agent's platform and current stream version. */
export function platformSyncView(record: PlatformSyncRecord, agent: { voice_platform: VoicePlatform; version: number }): PlatformSyncView {
  return platformSyncViewOf(summaryOf(record), agent);
}
