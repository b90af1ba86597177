/** Read-model views of a folded conversation: the list item, the grouped detail, the transcript, and the row written for it. */
import type { ConversationChange, ConversationDetail, ConversationListItem, TranscriptView } from '@voice/contracts';
import { effectiveStartTime, type ConversationState } from './conversation.evolve.js';

/** Every timestamp leaves the service in one form: UTC, milliseconds, `Z`. */
export function toIso(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** An instant in microseconds since the epoch as ISO 8601 with six fractional digits (PostgreSQL's precision), for SQL. */
export function isoOfMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(us - ms * 1000).padStart(3, '0')}Z`);
}

/** A folded conversation to write into the read model. Its identity is (accountId, state.id). */
export interface ProjectedConversation {
  state: ConversationState;
  accountId: string;
  streamVersion: number;
  /** The agent's platform when the conversation's first event was recorded (kept in that event's metadata). */
  voicePlatform: string | null;
}

export interface RecordTimes {
  created_at: string;
  updated_at: string;
}

export function toListItem(state: ConversationState, agentName: string | null, times: RecordTimes): ConversationListItem {
  return {
    id: state.id,
    agent_id: state.agent_id,
    agent_name: agentName,
    caller_number: state.caller_number,
    status: state.status,
    start_time: toIso(effectiveStartTime(state)),
    end_time: state.end_time === null ? null : toIso(state.end_time),
    duration: state.duration,
    sentiment: state.sentiment,
    outcome: state.outcome,
    topics: state.topics,
    has_recording: state.recording_url !== null,
    has_transcript: state.transcript.length > 0,
    summary: state.summary,
    created_at: times.created_at,
  };
}

/**
 * The change a written read-model row announces (publish-conversation-changes/): the list item as the row now
 * holds it, `conversation.created` when the write created the row.
 */
export function toChange(
  projected: ProjectedConversation,
  written: { created: boolean; created_at: Date },
  agentName: string | null,
): ConversationChange {
  const at = toIso(written.created_at);
  return {
    type: written.created ? 'conversation.created' : 'conversation.updated',
    account_id: projected.accountId,
    version: projected.streamVersion,
    conversation: toListItem(projected.state, agentName, { created_at: at, updated_at: at }),
  };
}

export function toDetail(state: ConversationState, agent: { name: string | null; voice_platform: string | null }, times: RecordTimes): ConversationDetail {
  return {
    ...toListItem(state, agent.name, times),
    updated_at: times.updated_at,
    content: {
      transcript: state.transcript,
      recording_url: state.recording_url,
      language: state.language,
      summary: state.summary,
    },
    analytics: {
      sentiment: state.sentiment,
      topics: state.topics,
      keywords: state.keywords,
      satisfaction: state.satisfaction,
      intent: state.intent,
    },
    outcomes: {
      outcome: state.outcome,
      actions_taken: state.actions_taken,
      follow_up_tasks: state.follow_up_tasks,
      integrations: state.integrations,
    },
    technical: {
      voice_platform: agent.voice_platform,
      quality: state.quality,
      network: state.network,
      errors: state.errors,
      // Rows projected before these fields existed lack them until re-folded (rebuild-projection/).
      platform_call_id: state.platform_call_id ?? null,
      end_reason: state.end_reason ?? null,
      cost: state.cost ?? null,
      latency: state.latency ?? [],
    },
    failure_reason: state.failure_reason,
    abandonment_reason: state.abandonment_reason,
  };
}

export function toTranscriptView(state: ConversationState): TranscriptView {
  return { conversation_id: state.id, language: state.language, segments: state.transcript };
}

/** Lower-cased text the substring search runs over: summary and every transcript line. */
export function searchTextOf(state: ConversationState): string {
  return [state.summary ?? '', ...state.transcript.map((s) => s.text)].join('\n').toLowerCase();
}
