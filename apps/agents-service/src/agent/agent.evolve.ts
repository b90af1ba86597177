/**
 * How each agent event changes the agent: the state is the fold of its stream.
 * Pure; the store folds what it loads and what it appends, the relay what it publishes.
 */
import { AgentEventTypes } from '@voice/contracts';
import { piiRedactionOf, retentionOf, type AgentState } from './agent.js';
import type { AgentEvent } from './agent.events.js';

export function evolve(state: AgentState | undefined, event: AgentEvent): AgentState {
  const version = (state?.version ?? 0) + 1;
  if (event.type === AgentEventTypes.created) {
    const { agent_id, account_id, created_at, pii_redaction, store_content, retention, ...fields } = event.data;
    // Agents created before the privacy settings existed have the settings' defaults.
    return {
      ...fields, pii_redaction: pii_redaction ?? piiRedactionOf(undefined), store_content: store_content ?? true, retention: retention ?? retentionOf(undefined),
      id: agent_id, account_id, status: 'active', created_at, updated_at: created_at, version,
    };
  }
  if (!state) throw new Error(`${event.type} cannot start an agent stream`);
  switch (event.type) {
    case AgentEventTypes.updated:
      return { ...state, ...event.data.changes, updated_at: event.data.updated_at, version };
    case AgentEventTypes.paused:
      return { ...state, status: 'paused', updated_at: event.data.paused_at, version };
    case AgentEventTypes.resumed:
      return { ...state, status: 'active', updated_at: event.data.resumed_at, version };
    case AgentEventTypes.deleted:
      return { ...state, status: 'deleted', updated_at: event.data.deleted_at, version };
    case AgentEventTypes.phoneNumberAssigned:
      return { ...state, phone_number: event.data.phone_number, updated_at: event.data.assigned_at, version };
  }
}

export function fold(events: readonly AgentEvent[], initial?: AgentState): AgentState | undefined {
  return events.reduce<AgentState | undefined>(evolve, initial);
}
