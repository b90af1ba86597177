/**
 * What an agent's switches allow us to keep. Applied before an event is stored,
 * so a recording URL or transcript of an agent with recording/transcription off
 * never reaches the database, and re-folding the stored events stays pure.
 */
import type { CallEvent } from '@voice/contracts';

export interface AgentSwitches {
  recording_enabled: boolean;
  transcription_enabled: boolean;
}

export function applyAgentPolicy(event: CallEvent, agent: AgentSwitches): CallEvent {
  if (event.type === 'call.ended' && !agent.recording_enabled && event.data.recording_url !== undefined) {
    const { recording_url: _dropped, ...data } = event.data;
    return { ...event, data };
  }
  if (event.type === 'call.transcript' && !agent.transcription_enabled) {
    return { ...event, data: { segments: [] } };
  }
  return event;
}
