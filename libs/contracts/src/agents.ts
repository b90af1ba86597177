/** Agent resource (section 2.1 of the interface) and its integration events. */

export const VOICE_PLATFORMS = ['platform_a', 'platform_b'] as const;
export type VoicePlatform = (typeof VOICE_PLATFORMS)[number];

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `deleted` is internal: deleted agents are never returned by the API. */
export const AGENT_STATUSES = ['active', 'paused'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number] | 'deleted';

export interface ScheduleItem {
  day: Weekday;
  open: string;
  close: string;
}
export interface BusinessHours {
  timezone: string;
  schedule: ScheduleItem[];
}

/** The agent as returned by the API: every field of 2.1, nulls where unset. */
export interface AgentView {
  id: string;
  name: string;
  voice_platform: VoicePlatform;
  phone_number: string;
  voice_id: string;
  language: string;
  system_prompt: string | null;
  welcome_message: string | null;
  transfer_number: string | null;
  business_hours: BusinessHours | null;
  recording_enabled: boolean;
  transcription_enabled: boolean;
  status: Exclude<AgentStatus, 'deleted'>;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

/** Reply of create/get/update: the agent plus its stream version (the ETag). */
export interface AgentReply {
  agent: AgentView;
  version: number;
}

/**
 * Integration event relayed from the agents event store to JetStream
 * (stream AGENT_EVENTS, subject `agent_events.<type>`). Each carries the agent's
 * full state after the event, so a consumer only keeps the highest version it saw.
 */
export const AgentEventTypes = {
  created: 'AgentCreated',
  updated: 'AgentUpdated',
  paused: 'AgentPaused',
  resumed: 'AgentResumed',
  deleted: 'AgentDeleted',
} as const;
export type AgentEventType = (typeof AgentEventTypes)[keyof typeof AgentEventTypes];

export interface AgentSnapshot {
  agent_id: string;
  account_id: string;
  name: string;
  voice_platform: VoicePlatform;
  status: AgentStatus;
  recording_enabled: boolean;
  transcription_enabled: boolean;
}

export interface AgentIntegrationEvent {
  /** The event id in the agents event store; consumers de-duplicate on it. */
  id: string;
  type: AgentEventType;
  /** Stream version of the agent after this event. */
  version: number;
  occurred_at: string;
  agent: AgentSnapshot;
}
