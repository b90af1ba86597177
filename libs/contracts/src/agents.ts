/** Agent resource (section 2.1 of the interface) and its integration events; its views are in agent-views.ts. */
import type { AgentSnapshot } from './agent-snapshot.js';
import type { AgentView, PiiRedaction } from './agent-views.js';

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

/**
 * What an agent can ask to have redacted from what callers say: the detectors' categories, and the caller's own
 * number (`caller_number`, kept as its last 2 digits), which is the record's key and so only redacted on request.
 */
export const PII_REDACTION_CATEGORIES = [
  'phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address', 'caller_number',
] as const;
export type PiiRedactionCategory = (typeof PII_REDACTION_CATEGORIES)[number];

/** The categories redacted when an agent names none: every detected category, not the caller's number. */
export const DEFAULT_PII_REDACTION_CATEGORIES: readonly PiiRedactionCategory[] = PII_REDACTION_CATEGORIES.filter((c) => c !== 'caller_number');

/** An agent's redaction settings, as its view and its snapshot carry them. */
export type PiiRedactionSettings = PiiRedaction;

export function defaultPiiRedaction(): PiiRedactionSettings {
  return { enabled: false, categories: [...DEFAULT_PII_REDACTION_CATEGORIES] };
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
