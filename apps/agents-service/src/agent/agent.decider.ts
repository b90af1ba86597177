/**
 * The agent's decisions as a pure function: `decide` turns a command and the
 * current state (folded by agent.evolve.ts) into events, or refuses it. Every
 * refusal is a named rule of agent.rules.ts, given the facts the handler loaded.
 *
 * Lifecycle: (none) → active on create; active ⇄ paused via PATCH status;
 * active | paused → deleted via DELETE; deleted is terminal (the agent is gone
 * for every command). Asking for the status the agent already has is a no-op.
 */
import { AgentEventTypes, type AgentStatus } from '@voice/contracts';
import { DEFAULT_LANGUAGE, DEFAULT_VOICE_IDS, piiRedactionOf, retentionOf, type AgentFields, type AgentState } from './agent.js';
import type { AgentEvent } from './agent.events.js';
import { agentMustBeNew, agentMustExist, nameMustBeFree, platformMustBeConfigured, quotaMustAllow, versionMustMatch } from './agent.rules.js';

/** The account's live (active and paused) agents as the store reads them for a create. */
export interface AccountAgents {
  live_agents: number;
  /** Whether one of them already has the new agent's name (case and surrounding spaces ignored). */
  name_taken: boolean;
  /** The platforms the account has an integration for. */
  integrated_platforms: readonly string[];
}

/** What a create is decided on: the account's context from the request and its agents from the store. */
export interface CreationFacts extends Omit<AccountAgents, 'integrated_platforms'> {
  /** Platforms the account may use (its plan) and has an integration for. */
  configured_platforms: readonly string[];
  agent_limit: number;
}

/**
 * Rule 4.2.2's "configured": the account's plan includes the platform (the admin's
 * voice_platforms, its entitlement) and the account set up an integration for it.
 */
export function configuredPlatforms(entitled: readonly string[], integrated: readonly string[]): string[] {
  return entitled.filter((platform) => integrated.includes(platform));
}

export interface CreateAgent extends CreationFacts {
  type: 'CreateAgent';
  agent_id: string;
  account_id: string;
  /** phone_number null: the platform sells one when the agent is created there. */
  input: Pick<AgentFields, 'name' | 'voice_platform' | 'phone_number'> & Partial<AgentFields>;
  now: string;
}

/** `null` clears a clearable field; metadata null means {}. */
export type AgentChanges = { [K in keyof AgentFields]?: AgentFields[K] | null };

export interface UpdateAgent {
  type: 'UpdateAgent';
  changes: AgentChanges;
  status?: Exclude<AgentStatus, 'deleted'>;
  configured_platforms: readonly string[];
  /** From If-Match; absent means "whatever the current version is". */
  expected_version?: number;
  now: string;
}

export interface DeleteAgent {
  type: 'DeleteAgent';
  /** From If-Match; absent means "whatever the current version is". */
  expected_version?: number;
  now: string;
}

/**
 * The platform sold the agent a number: recorded once, for an agent created without one — or in place of
 * `replacing`, a bought number the platform no longer has (released behind our back: it went back to the carrier).
 */
export interface AssignPhoneNumber {
  type: 'AssignPhoneNumber';
  phone_number: string;
  replacing?: string;
  now: string;
}

/** The voice platform refused a new agent for good: the agent is withdrawn as if never created. */
export interface WithdrawRefusedAgent {
  type: 'WithdrawRefusedAgent';
  now: string;
}

export type AgentCommand = CreateAgent | UpdateAgent | DeleteAgent | AssignPhoneNumber | WithdrawRefusedAgent;

export function decide(command: AgentCommand, state: AgentState | undefined): AgentEvent[] {
  switch (command.type) {
    case 'CreateAgent':
      return decideCreate(command, state);
    case 'UpdateAgent':
      return decideUpdate(command, state);
    case 'DeleteAgent':
      return decideDelete(command, state);
    case 'AssignPhoneNumber':
      return decideAssignPhoneNumber(command, state);
    case 'WithdrawRefusedAgent':
      return decideWithdraw(command, state);
  }
}

/** The rules a new agent must pass, in the order they answer, on the facts read under the account's lock. */
export function creationMustBeAllowed(input: Pick<AgentFields, 'name' | 'voice_platform'>, facts: CreationFacts): void {
  platformMustBeConfigured(input.voice_platform, facts.configured_platforms);
  quotaMustAllow(facts.agent_limit, facts.live_agents);
  nameMustBeFree(input.name, facts.name_taken);
}

function decideCreate(command: CreateAgent, state: AgentState | undefined): AgentEvent[] {
  agentMustBeNew(state);
  const { input } = command;
  creationMustBeAllowed(input, command);
  return [
    {
      type: AgentEventTypes.created,
      data: {
        agent_id: command.agent_id,
        account_id: command.account_id,
        name: input.name,
        voice_platform: input.voice_platform,
        phone_number: input.phone_number,
        voice_id: input.voice_id ?? DEFAULT_VOICE_IDS[input.voice_platform],
        language: input.language ?? DEFAULT_LANGUAGE,
        system_prompt: input.system_prompt ?? null,
        welcome_message: input.welcome_message ?? null,
        transfer_number: input.transfer_number ?? null,
        business_hours: input.business_hours ?? null,
        recording_enabled: input.recording_enabled ?? true,
        transcription_enabled: input.transcription_enabled ?? true,
        pii_redaction: piiRedactionOf(input.pii_redaction),
        store_content: input.store_content ?? true,
        retention: retentionOf(input.retention),
        metadata: input.metadata ?? {},
        created_at: command.now,
      },
    },
  ];
}

/** What a PATCH field becomes on the agent: null metadata is {}, the privacy settings are replaced whole with their defaults filled in. */
function settingOf(key: keyof AgentFields, value: unknown): unknown {
  if (key === 'metadata' && value === null) return {};
  if (key === 'pii_redaction') return piiRedactionOf(value as AgentChanges['pii_redaction']);
  if (key === 'retention') return retentionOf(value as AgentChanges['retention']);
  return value;
}

function decideUpdate(command: UpdateAgent, state: AgentState | undefined): AgentEvent[] {
  agentMustExist(state);
  versionMustMatch(state, command.expected_version);
  const wanted: Partial<AgentFields> = {};
  for (const [key, value] of Object.entries(command.changes) as Array<[keyof AgentFields, unknown]>) {
    if (value === undefined) continue;
    (wanted as Record<string, unknown>)[key] = settingOf(key, value);
  }
  const platform = wanted.voice_platform;
  if (platform !== undefined && platform !== state.voice_platform) {
    platformMustBeConfigured(platform, command.configured_platforms);
    // Voice ids belong to one platform's library: switching platform without
    // naming a voice falls back to the new platform's default.
    if (wanted.voice_id === undefined) wanted.voice_id = DEFAULT_VOICE_IDS[platform];
  }
  const changes = Object.fromEntries(
    Object.entries(wanted).filter(([key, value]) => !sameValue(value, state[key as keyof AgentFields])),
  ) as Partial<AgentFields>;

  const events: AgentEvent[] = [];
  if (Object.keys(changes).length > 0) events.push({ type: AgentEventTypes.updated, data: { changes, updated_at: command.now } });
  if (command.status === 'paused' && state.status === 'active') events.push({ type: AgentEventTypes.paused, data: { paused_at: command.now } });
  if (command.status === 'active' && state.status === 'paused') events.push({ type: AgentEventTypes.resumed, data: { resumed_at: command.now } });
  return events;
}

function decideDelete(command: DeleteAgent, state: AgentState | undefined): AgentEvent[] {
  agentMustExist(state);
  versionMustMatch(state, command.expected_version);
  return [{ type: AgentEventTypes.deleted, data: { deleted_at: command.now, released_phone_number: state.phone_number } }];
}

/** Only a live agent without a number gets one; the number bought for it is otherwise the platform's business (released by the sync). */
function decideAssignPhoneNumber(command: AssignPhoneNumber, state: AgentState | undefined): AgentEvent[] {
  if (!state || state.status === 'deleted') return [];
  const replaces = command.replacing !== undefined && state.phone_number === command.replacing && command.phone_number !== command.replacing;
  if (state.phone_number !== null && !replaces) return [];
  return [{ type: AgentEventTypes.phoneNumberAssigned, data: { phone_number: command.phone_number, assigned_at: command.now } }];
}

function decideWithdraw(command: WithdrawRefusedAgent, state: AgentState | undefined): AgentEvent[] {
  if (!state || state.status === 'deleted') return [];
  return [{ type: AgentEventTypes.deleted, data: { deleted_at: command.now, released_phone_number: state.phone_number, reason: 'platform_refused' } }];
}

/** Structural equality where object key order does not matter (metadata {a,b} equals {b,a}). */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
