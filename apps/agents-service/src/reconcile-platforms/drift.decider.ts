/**
 * Drift between what we recorded of our agents on one platform account and what
 * the platform's listing shows, and the repair of each: `findDrift(agents,
 * listing) → DriftRepair[]`. Pure: no I/O, no clock.
 *
 * We are the source of truth. A repair is the facts the platform really holds
 * (what it lost forgotten, what it changed as it now is): the ordinary sync plan
 * (platform-sync.decider.ts) from those facts sets the platform back —
 * - agent gone → find_or_create_agent (then its number is bound to it again);
 * - number gone → acquire_number: the same E.164 imported again when it was the
 *   customer's; a bought one that is gone went back to the carrier, so a new one
 *   is bought (`replace_number`: the agent's phone_number changes);
 * - number answering nothing / for another agent → bind_number; answering for a
 *   paused agent → unbind_number;
 * - fields edited on the platform → update_agent with those fields.
 *
 * Only agents synced on this platform take part (the caller's choice): an agent
 * with sync work pending is the sync's business, and its facts are in motion.
 */
import type { PlatformNumberDrift } from '@voice/contracts';
import { AGENT_SPEC_FIELDS, type AgentSpecField, type PlatformAgentSpec, type ListedPlatformAgent, type ListedPlatformNumber, type StoredAgentFields } from '@voice/voice-platforms';
import type { NumberFacts, PlatformFacts } from '../platform-sync/platform-sync.decider.js';
import type { PlatformDrift } from '../platform-sync/platform-sync.events.js';

/** One of our agents as recorded on the platform being reconciled. */
export interface RecordedAgent {
  agent_id: string;
  status: 'active' | 'paused';
  /** The sync stream's version the facts were read at: a repair goes ahead only if nothing was recorded since. */
  sync_version: number;
  facts: PlatformFacts;
  /** The spec last sent, in the form the platform stores it (adapter.storedFields); null when none was recorded. */
  stored: StoredAgentFields | null;
}

export interface PlatformListing {
  agents: readonly ListedPlatformAgent[];
  numbers: readonly ListedPlatformNumber[];
}

export interface DriftRepair {
  agent_id: string;
  sync_version: number;
  drift: PlatformDrift;
  /** Our platform agent as recorded before the drift (gone, when agent_missing). */
  recorded_platform_agent_id: string | null;
  /** The facts as the platform holds them: recorded, then planned from as any sync. */
  facts: PlatformFacts;
  /** The agent's bought number is gone: buy another and make it the agent's. */
  replace_number: boolean;
}

export function findDrift(agents: readonly RecordedAgent[], listing: PlatformListing): DriftRepair[] {
  const platformAgents = new Map(listing.agents.map((agent) => [agent.platform_agent_id, agent]));
  const numbers = new Map(listing.numbers.map((number) => [number.platform_number_id, number]));
  const repairs: DriftRepair[] = [];
  for (const agent of agents) {
    const repair = driftOf(agent, platformAgents, numbers);
    if (repair) repairs.push(repair);
  }
  return repairs;
}

function driftOf(
  agent: RecordedAgent,
  platformAgents: ReadonlyMap<string, ListedPlatformAgent>,
  numbers: ReadonlyMap<string, ListedPlatformNumber>,
): DriftRepair | undefined {
  const { facts } = agent;
  const ourId = facts.platform_agent_id;
  const listed = ourId === null ? undefined : platformAgents.get(ourId);
  const agentMissing = ourId !== null && listed === undefined;
  const changed = listed && agent.stored ? AGENT_SPEC_FIELDS.filter((field) => listed.fields[field] !== agent.stored![field]) : [];

  const listedNumber = facts.number ? numbers.get(facts.number.platform_number_id) : undefined;
  const numberDrift = facts.number ? numberDriftOf(agent, listedNumber, agentMissing) : null;

  if (!agentMissing && numberDrift === null && changed.length === 0) return undefined;
  const number: NumberFacts | null = facts.number && listedNumber ? { ...facts.number, bound_to: listedNumber.bound_to } : null;
  return {
    agent_id: agent.agent_id,
    sync_version: agent.sync_version,
    drift: { agent_missing: agentMissing, number: numberDrift, changed_fields: [...changed] },
    recorded_platform_agent_id: ourId,
    facts: {
      platform_agent_id: agentMissing ? null : ourId,
      spec: agentMissing ? null : specAsHeld(facts.spec, listed, changed),
      number,
    },
    replace_number: numberDrift === 'missing' && facts.number!.purchased,
  };
}

/**
 * What became of the number. A number left answering nothing because its agent was deleted is part of that
 * drift (the platform unbinds the numbers of an agent it deletes), not one of its own.
 */
function numberDriftOf(agent: RecordedAgent, listed: ListedPlatformNumber | undefined, agentMissing: boolean): PlatformNumberDrift | null {
  if (!listed) return 'missing';
  const ourId = agent.facts.platform_agent_id;
  if (agent.status === 'paused') return listed.bound_to === null ? null : 'bound_while_paused';
  if (listed.bound_to === ourId) return null;
  if (listed.bound_to === null) return agentMissing ? null : 'unbound';
  return 'bound_elsewhere';
}

/**
 * The spec last sent with the changed fields as the platform holds them, so the plan's update sends exactly those.
 * A held value that reads like ours (possible only where the platform stores another form of it) would hide the
 * change from the plan: then the spec counts as unknown and every field is sent.
 */
function specAsHeld(sent: PlatformAgentSpec | null, listed: ListedPlatformAgent | undefined, changed: readonly AgentSpecField[]): PlatformAgentSpec | null {
  if (!sent || !listed || changed.length === 0) return sent;
  const held: Record<string, unknown> = { ...sent };
  for (const field of changed) {
    if (listed.fields[field] === sent[field]) return null;
    held[field] = listed.fields[field];
  }
  return held as unknown as PlatformAgentSpec;
}
