import type { AgentSnapshot, AgentView } from '@voice/contracts';
import type { AgentState } from './agent.js';

export function toAgentView(state: AgentState): AgentView {
  if (state.status === 'deleted') throw new Error('a deleted agent has no public view');
  return {
    id: state.id,
    name: state.name,
    voice_platform: state.voice_platform,
    phone_number: state.phone_number,
    voice_id: state.voice_id,
    language: state.language,
    system_prompt: state.system_prompt,
    welcome_message: state.welcome_message,
    transfer_number: state.transfer_number,
    business_hours: state.business_hours,
    recording_enabled: state.recording_enabled,
    transcription_enabled: state.transcription_enabled,
    status: state.status,
    metadata: state.metadata,
    created_at: state.created_at,
    updated_at: state.updated_at,
  };
}

export function toSnapshot(state: AgentState): AgentSnapshot {
  return {
    agent_id: state.id,
    account_id: state.account_id,
    name: state.name,
    voice_platform: state.voice_platform,
    status: state.status,
    recording_enabled: state.recording_enabled,
    transcription_enabled: state.transcription_enabled,
  };
}

/** A row of agents.agents; its columns are named like the state's fields. */
export type AgentRow = Omit<AgentState, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

export function rowToState(row: AgentRow): AgentState {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

export const AGENT_COLUMNS = [
  'id', 'account_id', 'name', 'voice_platform', 'phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message',
  'transfer_number', 'business_hours', 'recording_enabled', 'transcription_enabled', 'status', 'metadata', 'created_at',
  'updated_at', 'version',
] as const satisfies ReadonlyArray<keyof AgentState>;
