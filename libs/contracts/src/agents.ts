/** Agent resource (section 2.1 of the interface) and its integration events; its views are in agent-views.ts. */
import type { AgentSnapshot } from './agent-snapshot.js';
import type { AgentView, PiiRedaction, Retention } from './agent-views.js';

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

/** The days an agent may keep its conversations or its recordings for: from one day to ten years. */
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;

/** How long an agent's conversations and recordings are kept, in days; null keeps them. */
export type RetentionSettings = Retention;

export function defaultRetention(): RetentionSettings {
  return { conversations_days: null, recordings_days: null };
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

/**
 * What AGENT_EVENTS also carries besides the agents' changes (subject `agent_events.<type>`): what agents-service
 * met dealing with the voice platforms, recorded in its event store and relayed after the commit like the
 * changes. They change no agent: a consumer that keeps agents ignores them.
 */
export const AgentNoticeTypes = {
  /** An agent's platform sync failed (each failure once; a retry meeting the same failure again is not news). */
  syncFailed: 'AgentSyncFailed',
  /** A platform refused the account's stored API key (once, until the integration is configured again). */
  credentialsRefused: 'IntegrationCredentialsRefused',
} as const;
export type AgentNoticeType = (typeof AgentNoticeTypes)[keyof typeof AgentNoticeTypes];

export function isAgentNoticeType(type: unknown): type is AgentNoticeType {
  return type === AgentNoticeTypes.syncFailed || type === AgentNoticeTypes.credentialsRefused;
}

/** A failed sync as the agent's own stream does not record it: what failed, never a secret. */
export interface AgentSyncFailure {
  /** invalid_platform_credentials, platform_rejected, phone_number_in_use, phone_number_unavailable, platform_unavailable, … */
  code: string;
  message: string;
  /** Our field the platform objected to, when known. */
  field?: string;
  /** false: retried on the backoff; true: waits for a change of the agent or its integration. */
  permanent: boolean;
  platform: VoicePlatform;
  /** Which try at this version of the agent (1 the first), when the sync counted it. */
  attempt?: number;
}

export interface AgentSyncFailedNotice {
  /** The event id in the agents event store. */
  id: string;
  type: typeof AgentNoticeTypes.syncFailed;
  /** The agent's version the sync was for. */
  version: number;
  occurred_at: string;
  /** The agent as that version shows it (the snapshot its change events carry). */
  agent: AgentSnapshot;
  failure: AgentSyncFailure;
}

export interface IntegrationCredentialsRefusedNotice {
  id: string;
  type: typeof AgentNoticeTypes.credentialsRefused;
  occurred_at: string;
  account_id: string;
  integration_id: string;
  platform: VoicePlatform;
  /** What refused the key, in words (never the key). */
  reason: string;
}

/** Every message of AGENT_EVENTS. */
export type AgentStreamMessage = AgentIntegrationEvent | AgentSyncFailedNotice | IntegrationCredentialsRefusedNotice;
