import type { AgentReply, AgentSnapshot, AgentView } from '@voice/contracts';
import type { AgentRecord } from './agent.store.js';
import type { AgentState } from './agent.js';
import { platformSyncViewOf, type PlatformSyncSummary } from '../platform-sync/platform-sync.view.js';

/** `sync`: the summary projected by the platform sync (null before its first attempt). */
export function toAgentView(state: AgentState, sync: PlatformSyncSummary | null): AgentView {
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
    pii_redaction: state.pii_redaction,
    store_content: state.store_content,
    retention: state.retention,
    status: state.status,
    metadata: state.metadata,
    created_at: state.created_at,
    updated_at: state.updated_at,
    platform_sync: platformSyncViewOf(sync, state),
  };
}

/** The reply of create, get and update: the agent and its version (the ETag). */
export function agentReply(record: AgentRecord): AgentReply {
  return { agent: toAgentView(record.state, record.sync), version: record.state.version };
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
    pii_redaction: state.pii_redaction,
    store_content: state.store_content,
    retention: state.retention,
  };
}
