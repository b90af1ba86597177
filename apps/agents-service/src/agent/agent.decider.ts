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
import { DEFAULT_LANGUAGE, DEFAULT_VOICE_IDS, type AgentFields, type AgentState } from './agent.js';
import type { AgentEvent } from './agent.events.js';
import { agentMustBeNew, agentMustExist, nameMustBeFree, platformMustBeConfigured, quotaMustAllow, versionMustMatch } from './agent.rules.js';

/** The account's live (active and paused) agents as the store reads them for a create. */
export interface AccountAgents {
  live_agents: number;
  /** Whether one of them already has the new agent's name (case and surrounding spaces ignored). */
  name_taken: boolean;
}

/** What a create is decided on: the account's context from the request and its agents from the store. */
export interface CreationFacts extends AccountAgents {
  configured_platforms: readonly string[];
  agent_limit: number;
}

export interface CreateAgent extends CreationFacts {
  type: 'CreateAgent';
  agent_id: string;
  account_id: string;
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

export type AgentCommand = CreateAgent | UpdateAgent | DeleteAgent;

export function decide(command: AgentCommand, state: AgentState | undefined): AgentEvent[] {
  switch (command.type) {
    case 'CreateAgent':
      return decideCreate(command, state);
    case 'UpdateAgent':
      return decideUpdate(command, state);
    case 'DeleteAgent':
      return decideDelete(command, state);
  }
}

/**
 * The rules a new agent must pass, in the order they answer. The create
 * handler also asks this before it provisions a phone number, on facts read
 * without the account's lock, so that a create which would be refused costs no
 * number; the decision under the lock asks again on fresh facts because another
 * create may have taken the last slot or the name in between.
 */
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
        metadata: input.metadata ?? {},
        created_at: command.now,
      },
    },
  ];
}

function decideUpdate(command: UpdateAgent, state: AgentState | undefined): AgentEvent[] {
  agentMustExist(state);
  versionMustMatch(state, command.expected_version);
  const wanted: Partial<AgentFields> = {};
  for (const [key, value] of Object.entries(command.changes) as Array<[keyof AgentFields, unknown]>) {
    if (value === undefined) continue;
    (wanted as Record<string, unknown>)[key] = key === 'metadata' && value === null ? {} : value;
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
