/** Agent resource (section 2.1 of the interface) and its integration events. */

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

export interface ScheduleItem {
  day: Weekday;
  open: string;
  close: string;
}
export interface BusinessHours {
  timezone: string;
  schedule: ScheduleItem[];
}

export const PLATFORM_SYNC_STATES = ['synced', 'pending', 'failed'] as const;
export type PlatformSyncState = (typeof PLATFORM_SYNC_STATES)[number];

/**
 * Where the agent stands on its voice platform:
 * - synced: the platform holds the agent as its current version wants it;
 * - pending: not yet (just changed, or retrying after the platform was unreachable, slow, 429 or 5xx);
 * - failed: the platform refused the current version for good; waits for the next change.
 */
export interface PlatformSyncView {
  state: PlatformSyncState;
  /** The platform's id of the agent (platform_a agent_id, platform_b assistant id), once created there. */
  platform_agent_id: string | null;
  /** The agent version (ETag) the platform last fully reflected. */
  synced_version: number | null;
  last_attempt_at: string | null;
  last_error: { code: string; message: string; field?: string } | null;
  /** When the background reconciliation last compared the agent with its platform (null: not yet). */
  last_reconciled_at: string | null;
  /** The latest difference the reconciliation found on the platform, and whether it was set back. */
  last_drift: PlatformDriftView | null;
}

/** What had become of an agent's number on its platform when the reconciliation found it changed. */
export const PLATFORM_NUMBER_DRIFTS = ['missing', 'unbound', 'bound_elsewhere', 'bound_while_paused'] as const;
export type PlatformNumberDrift = (typeof PLATFORM_NUMBER_DRIFTS)[number];

export interface PlatformDriftView {
  found_at: string;
  /** null while the repair is still pending (or failed: last_error says why). */
  repaired_at: string | null;
  platform: VoicePlatform;
  /** The platform agent was gone: it is recreated (a new platform_agent_id). */
  agent_missing: boolean;
  /** What had become of the agent's number on the platform; null: nothing. */
  number: PlatformNumberDrift | null;
  /** Our fields the platform held otherwise (set back to ours). */
  changed_fields: string[];
  /** A bought number that was gone is replaced by a new one: the agent's phone_number before and after. */
  phone_number_before: string | null;
  phone_number_after: string | null;
}

/** The agent as returned by the API: every field of 2.1, nulls where unset. */
export interface AgentView {
  id: string;
  name: string;
  voice_platform: VoicePlatform;
  /** The number the platform answers on; null only while a number to buy is still pending on the platform. */
  phone_number: string | null;
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
  platform_sync: PlatformSyncView;
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
