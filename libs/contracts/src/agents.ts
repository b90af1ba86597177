/** Agent resource (section 2.1 of the interface) and its integration events; its views are in agent-views.ts. */
import type { AgentView } from './agent-views.js';

export const VOICE_PLATFORMS = ['platform_a', 'platform_b'] as const;

/** GET /v1/agents: the longest `search` (characters). */
export const AGENT_LIST_LIMITS = { search: 100 } as const;
export type VoicePlatform = (typeof VOICE_PLATFORMS)[number];

export function isVoicePlatform(value: unknown): value is VoicePlatform {
  return typeof value === 'string' && (VOICE_PLATFORMS as readonly string[]).includes(value);
}

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `deleted` is internal: deleted agents are never returned by the API. */
export const AGENT_STATUSES = ['active', 'paused'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number] | 'deleted';

export const PLATFORM_SYNC_STATES = ['synced', 'pending', 'failed'] as const;
export type PlatformSyncState = (typeof PLATFORM_SYNC_STATES)[number];

/** What had become of an agent's number on its platform when the reconciliation found it changed. */
export const PLATFORM_NUMBER_DRIFTS = ['missing', 'unbound', 'bound_elsewhere', 'bound_while_paused'] as const;
export type PlatformNumberDrift = (typeof PLATFORM_NUMBER_DRIFTS)[number];

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
  /** The platform sold the agent a number (its phone_number was omitted on create). */
  phoneNumberAssigned: 'AgentPhoneNumberAssigned',
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
