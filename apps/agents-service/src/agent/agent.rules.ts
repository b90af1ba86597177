/**
 * The agent's business rules, one named function per rule. Pure: each rule is
 * given the facts it needs and refuses with an AgentRuleViolation (the
 * transport edge turns that into the structured error). The decider is what
 * calls them; the two other callers are named at each rule.
 */
import type { ServiceError, VoicePlatform } from '@voice/contracts';
import { AgentRuleViolation, type AgentState } from './agent.js';

/** An agent speaks through a platform the account has set up. */
export function platformMustBeConfigured(platform: VoicePlatform, configured: readonly string[]): void {
  if (!configured.includes(platform)) {
    throw new AgentRuleViolation({
      code: 'platform_not_configured',
      field: 'voice_platform',
      message: `The ${platform} integration is not configured for this account.`,
    });
  }
}

/** The plan caps the account's live agents: active and paused ones count, deleted ones do not. */
export function quotaMustAllow(limit: number, current: number): void {
  if (current >= limit) {
    throw new AgentRuleViolation({ code: 'quota_exceeded', message: `The plan allows ${limit} agents and the account has ${current}.`, limit, current });
  }
}

/**
 * A name is unique among the account's live agents, ignoring case and
 * surrounding spaces. Besides the decider, the command handling calls this when
 * the database's unique index refuses a name at the write, which is how a
 * rename (that takes no account lock) meets the rule.
 */
export function nameMustBeFree(name: string, taken: boolean): void {
  if (taken) throw new AgentRuleViolation({ code: 'duplicate_name', field: 'name', message: `An agent named "${name}" already exists in this account.` });
}

/**
 * A phone number belongs to at most one live agent, in any account. No lock
 * covers every account, so the database's unique index is the only place that
 * knows: the command handling calls this when that index refuses a number.
 */
export function phoneNumberMustBeFree(phoneNumber: string, taken: boolean): void {
  if (taken) {
    throw new AgentRuleViolation({ code: 'phone_number_in_use', field: 'phone_number', message: `${phoneNumber} is already used by another agent.` });
  }
}

/**
 * Every command and query meets an unknown, a deleted and another account's
 * agent alike: not found, so existence is never revealed. Another account's
 * agent reaches this as `undefined` (the store reads agents within one account).
 */
export function agentMustExist(agent: AgentState | undefined): asserts agent is AgentState {
  if (!agent || agent.status === 'deleted') throw new AgentRuleViolation({ code: 'not_found', message: 'No agent with this id exists.' });
}

/** A stream starts once: creating an agent whose id already has a history is a lost race, not an update. */
export function agentMustBeNew(agent: AgentState | undefined): void {
  if (agent) throw new AgentRuleViolation({ code: 'concurrent_modification', message: 'An agent with this id already exists.' });
}

/**
 * If-Match: a change that names the version it was based on is refused once
 * the agent is at another one. The other moment this rule is met is the
 * append, when another writer got there after this check passed; the retry
 * policy then answers with the same refusal (staleVersionRefusal).
 */
export function versionMustMatch(agent: AgentState, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && agent.version !== expectedVersion) throw new AgentRuleViolation(staleVersionRefusal(expectedVersion));
}

export function staleVersionRefusal(expectedVersion: number): ServiceError {
  return { code: 'precondition_failed', message: `The agent is no longer at version ${expectedVersion}; fetch it again and retry.` };
}
