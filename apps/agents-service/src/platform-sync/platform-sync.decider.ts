/**
 * What must happen on the voice platforms so that they hold our agent as we
 * want it: `planPlatformSync(desired, facts) → steps`, and `applyStep`, which
 * records a step's outcome in the facts. Pure: no I/O, no clock.
 *
 * Steps are resolved against the facts as they stand when the step runs (the
 * facts after the previous steps): `bind_number` binds the platform's recorded
 * number to the platform's recorded agent, which `find_or_create_agent` may
 * only just have recorded. So a plan is a sequence, run in order, and every
 * step is idempotent: running it again after a crash changes nothing more.
 *
 * Decisions:
 * - Creation looks the agent up by our id (external_id) first, so a crash
 *   between the platform's 201 and our commit never makes a second agent.
 * - Updates send only the fields that differ from the spec last sent.
 * - Pause unbinds the number (the platform stops answering), resume binds it.
 * - Delete: unbind, release a purchased number (an imported one is only
 *   unbound and forgotten, never deleted), delete the platform agent, on every
 *   platform we hold anything on.
 * - The agent's E.164 follows it. Target number = the customer's number, else
 *   the number already held on the current platform, else one held on another
 *   platform (a switch), else none: buy one.
 * - Switching platform: create the agent on the new platform and import the
 *   same E.164 there, bound; then on the old platform unbind the number and
 *   delete the old agent. The old platform's number record is KEPT (unbound)
 *   when it is the agent's number: releasing a number bought there would give
 *   the E.164 up, and switching back only needs a bind. It is released (or, if
 *   imported, forgotten) when the agent is deleted or its number changes.
 * - A number that is no longer the agent's (phone_number changed): unbound,
 *   then released if purchased / forgotten if imported, before the new one is
 *   acquired.
 */
import type { VoicePlatform } from '@voice/contracts';
import type { AgentState } from '../agent/agent.js';
import { AGENT_SPEC_FIELDS, VOICE_PLATFORM_DEFINITIONS, voicePlatform, type PlatformAgentChanges, type PlatformAgentSpec, type PlatformNumber } from '@voice/voice-platforms';

/** Every registered platform, in registry order: where an agent may hold something to remove. */
export const SYNC_PLATFORMS: readonly VoicePlatform[] = Object.values(VOICE_PLATFORM_DEFINITIONS).map((definition) => definition.platform);

export type SyncedStatus = 'active' | 'paused' | 'deleted';

/** What our agent wants on its platform. */
export interface DesiredPlatformAgent {
  status: SyncedStatus;
  voice_platform: VoicePlatform;
  /** The platform agent's fields; external_id is our agent id. */
  spec: PlatformAgentSpec;
  /** The customer's number (imported), or null: keep the one held, else buy one. */
  phone_number: string | null;
  /** Where to buy when buying (for a platform that sells only in a named area). */
  area_code?: string | null;
}

/** A number as we recorded it on one platform. */
export interface NumberFacts extends PlatformNumber {
  /** The platform agent it answers for; null: unbound (it does not answer). */
  bound_to: string | null;
}

/** What we recorded of one platform. */
export interface PlatformFacts {
  platform_agent_id: string | null;
  /** The spec last sent (created with or updated to). */
  spec: PlatformAgentSpec | null;
  number: NumberFacts | null;
}

export type SyncFacts = Partial<Record<VoicePlatform, PlatformFacts>>;

export type PlatformSyncStep =
  | { type: 'find_or_create_agent'; platform: VoicePlatform; spec: PlatformAgentSpec }
  /** Sends `changes` only; `spec` is the whole spec the agent then has. */
  | { type: 'update_agent'; platform: VoicePlatform; changes: PlatformAgentChanges; spec: PlatformAgentSpec }
  /** Import `phone_number`, or buy one (in `area_code` when given); bound to the platform's agent when `bind`. */
  | { type: 'acquire_number'; platform: VoicePlatform; phone_number: string | null; area_code: string | null; bind: boolean }
  | { type: 'bind_number'; platform: VoicePlatform }
  | { type: 'unbind_number'; platform: VoicePlatform }
  /** `release`: a purchased number is released; otherwise (imported) it is only unbound. Either way we forget it. */
  | { type: 'release_number'; platform: VoicePlatform; release: boolean }
  | { type: 'delete_agent'; platform: VoicePlatform };

/** What a step returned: the agent found or created, the number acquired; nothing for the others. */
export type StepResult = { platform_agent_id: string } | PlatformNumber | undefined;


export const NO_PLATFORM_FACTS: PlatformFacts = { platform_agent_id: null, spec: null, number: null };

export function factsOf(facts: SyncFacts, platform: VoicePlatform): PlatformFacts {
  return facts[platform] ?? NO_PLATFORM_FACTS;
}

/** The fields of `desired` that differ from `sent` (all of them when nothing was recorded). */
export function specChanges(sent: PlatformAgentSpec | null, desired: PlatformAgentSpec): PlatformAgentChanges {
  const changes: Record<string, unknown> = {};
  for (const field of AGENT_SPEC_FIELDS) if (!sent || sent[field] !== desired[field]) changes[field] = desired[field];
  return changes as PlatformAgentChanges;
}

/** The E.164 the agent should answer on, or null when one must be bought. */
export function targetNumber(desired: DesiredPlatformAgent, facts: SyncFacts): string | null {
  if (desired.phone_number !== null) return desired.phone_number;
  const current = factsOf(facts, desired.voice_platform).number;
  if (current) return current.phone_number;
  for (const platform of SYNC_PLATFORMS) {
    const held = factsOf(facts, platform).number;
    if (held) return held.phone_number;
  }
  return null;
}

/** Voice ids stored before agents reached their platforms named our own defaults (`<platform>-default-voice`); the platforms know theirs. */
const LEGACY_DEFAULT_VOICES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(VOICE_PLATFORM_DEFINITIONS).map((definition) => [`${definition.platform}-default-voice`, definition.defaultVoiceId]),
);

/** Where a platform that sells only in a named area buys when the agent's transfer number names none. */
export const DEFAULT_AREA_CODE = '415';

/**
 * What the agent wants on its platforms. `webhookUrl`: the integration's webhook address on the agent's
 * platform ('' when it has none: the platform then refuses the agent, which says why).
 *
 * A number to buy comes from the area of the agent's transfer number when that is a North American number
 * (the caller is local to the business), else DEFAULT_AREA_CODE; a platform that sells anywhere gets no area.
 */
export function desiredPlatformAgent(agent: AgentState, webhookUrl: string): DesiredPlatformAgent {
  const nanpArea = /^\+1([2-9]\d\d)/.exec(agent.transfer_number ?? '')?.[1];
  return {
    status: agent.status,
    voice_platform: agent.voice_platform,
    spec: {
      external_id: agent.id,
      name: agent.name,
      system_prompt: agent.system_prompt,
      welcome_message: agent.welcome_message,
      voice_id: LEGACY_DEFAULT_VOICES[agent.voice_id] ?? agent.voice_id,
      language: agent.language,
      transfer_number: agent.transfer_number,
      webhook_url: webhookUrl,
    },
    phone_number: agent.phone_number,
    area_code: voicePlatform(agent.voice_platform).numberPurchase === 'area_code_required' ? nanpArea ?? DEFAULT_AREA_CODE : null,
  };
}

export function planPlatformSync(desired: DesiredPlatformAgent, facts: SyncFacts): PlatformSyncStep[] {
  const steps: PlatformSyncStep[] = [];
  const target = desired.status === 'deleted' ? null : targetNumber(desired, facts);
  if (desired.status !== 'deleted') steps.push(...planCurrent(desired, factsOf(facts, desired.voice_platform), target));
  for (const platform of SYNC_PLATFORMS) {
    if (desired.status !== 'deleted' && platform === desired.voice_platform) continue;
    steps.push(...planRemoval(platform, factsOf(facts, platform), desired.status === 'deleted' ? null : target));
  }
  return steps;
}

/** The current platform: the agent with the desired spec, the target number bound when active. */
function planCurrent(desired: DesiredPlatformAgent, facts: PlatformFacts, target: string | null): PlatformSyncStep[] {
  const platform = desired.voice_platform;
  const steps: PlatformSyncStep[] = [];
  if (facts.platform_agent_id === null) {
    steps.push({ type: 'find_or_create_agent', platform, spec: desired.spec });
  } else {
    const changes = specChanges(facts.spec, desired.spec);
    if (Object.keys(changes).length > 0) steps.push({ type: 'update_agent', platform, changes, spec: desired.spec });
  }
  const active = desired.status === 'active';
  let number = facts.number;
  if (number && number.phone_number !== target) {
    if (number.bound_to !== null) steps.push({ type: 'unbind_number', platform });
    steps.push({ type: 'release_number', platform, release: number.purchased });
    number = null;
  }
  if (!number) {
    steps.push({ type: 'acquire_number', platform, phone_number: target, area_code: desired.area_code ?? null, bind: active });
    return steps;
  }
  // A just-found agent's id is unknown here: a bound number must then be (re)bound to it.
  const bound = facts.platform_agent_id !== null && number.bound_to === facts.platform_agent_id;
  if (active && !bound) steps.push({ type: 'bind_number', platform });
  if (!active && number.bound_to !== null) steps.push({ type: 'unbind_number', platform });
  return steps;
}

/** A platform the agent is leaving (or every platform of a deleted agent). `keep`: the E.164 held there stays, unbound. */
function planRemoval(platform: VoicePlatform, facts: PlatformFacts, keep: string | null): PlatformSyncStep[] {
  const steps: PlatformSyncStep[] = [];
  const { number } = facts;
  if (number) {
    if (number.bound_to !== null) steps.push({ type: 'unbind_number', platform });
    if (number.phone_number !== keep) steps.push({ type: 'release_number', platform, release: number.purchased });
  }
  if (facts.platform_agent_id !== null) steps.push({ type: 'delete_agent', platform });
  return steps;
}

export class StepOutOfOrder extends Error {
  constructor(step: PlatformSyncStep, what: string) {
    super(`${step.type} on ${step.platform}: ${what}`);
  }
}

/** The facts after `step` succeeded with `result`. */
export function applyStep(facts: SyncFacts, step: PlatformSyncStep, result?: StepResult): SyncFacts {
  const before = factsOf(facts, step.platform);
  const after = nextPlatformFacts(before, step, result);
  const empty = after.platform_agent_id === null && after.spec === null && after.number === null;
  const next: SyncFacts = { ...facts };
  if (empty) delete next[step.platform];
  else next[step.platform] = after;
  return next;
}

function nextPlatformFacts(facts: PlatformFacts, step: PlatformSyncStep, result: StepResult): PlatformFacts {
  switch (step.type) {
    case 'find_or_create_agent': {
      if (!result || !('platform_agent_id' in result)) throw new StepOutOfOrder(step, 'no platform agent id in the result');
      return { ...facts, platform_agent_id: result.platform_agent_id, spec: step.spec };
    }
    case 'update_agent': {
      if (facts.platform_agent_id === null) throw new StepOutOfOrder(step, 'no agent recorded');
      return { ...facts, spec: step.spec };
    }
    case 'acquire_number': {
      if (!result || !('platform_number_id' in result)) throw new StepOutOfOrder(step, 'no number in the result');
      const { phone_number, platform_number_id, purchased } = result;
      if (step.bind && facts.platform_agent_id === null) throw new StepOutOfOrder(step, 'no agent to bind to');
      return { ...facts, number: { phone_number, platform_number_id, purchased, bound_to: step.bind ? facts.platform_agent_id : null } };
    }
    case 'bind_number': {
      if (!facts.number || facts.platform_agent_id === null) throw new StepOutOfOrder(step, 'no number or no agent recorded');
      return { ...facts, number: { ...facts.number, bound_to: facts.platform_agent_id } };
    }
    case 'unbind_number': {
      if (!facts.number) throw new StepOutOfOrder(step, 'no number recorded');
      return { ...facts, number: { ...facts.number, bound_to: null } };
    }
    case 'release_number':
      return { ...facts, number: null };
    case 'delete_agent': {
      // The platform unbinds the numbers of an agent it deletes.
      const number = facts.number && facts.number.bound_to === facts.platform_agent_id ? { ...facts.number, bound_to: null } : facts.number;
      return { platform_agent_id: null, spec: null, number };
    }
  }
}
