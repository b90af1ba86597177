import {
  DEFAULT_PII_REDACTION_CATEGORIES, type AgentStatus, type AgentView, type BusinessHours, type PiiRedactionSettings, type RetentionSettings, type ServiceError,
  type VoicePlatform,
} from '@voice/contracts';
import { VOICE_PLATFORM_DEFINITIONS } from '@voice/voice-platforms';

/** The client-settable part of an agent: the API view without what the service sets. */
export type AgentFields = Omit<AgentView, 'id' | 'status' | 'created_at' | 'updated_at' | 'platform_sync'>;

/** The agent as folded from its event stream. */
export interface AgentState extends AgentFields {
  id: string;
  account_id: string;
  status: AgentStatus;
  created_at: string;
  updated_at: string;
  /** Stream version: number of events folded so far. */
  version: number;
}

/** Voice ids are platform-specific, so an agent without one gets its platform's default (the voice the platform itself uses when none is named). */
export const DEFAULT_VOICE_IDS = Object.fromEntries(
  Object.values(VOICE_PLATFORM_DEFINITIONS).map((definition) => [definition.platform, definition.defaultVoiceId]),
) as Readonly<Record<VoicePlatform, string>>;

export const DEFAULT_LANGUAGE = 'en';

/**
 * The redaction setting an agent keeps from what a client sent: the setting is replaced whole, an omitted
 * `enabled` is false and omitted categories are every detected one (the caller's number only on request).
 */
export function piiRedactionOf(sent: Partial<PiiRedactionSettings> | null | undefined): PiiRedactionSettings {
  return { enabled: sent?.enabled ?? false, categories: [...(sent?.categories ?? DEFAULT_PII_REDACTION_CATEGORIES)] };
}

/** The retention setting an agent keeps from what a client sent: replaced whole, an omitted or null limit keeps that data. */
export function retentionOf(sent: Partial<RetentionSettings> | null | undefined): RetentionSettings {
  return { conversations_days: sent?.conversations_days ?? null, recordings_days: sent?.recordings_days ?? null };
}

/**
 * A business rule refused a command. Pure domain code cannot depend on the
 * transport, so this carries the ServiceError and an interceptor turns it into
 * a ServiceFailure at the edge.
 */
export class AgentRuleViolation extends Error {
  constructor(readonly detail: ServiceError) {
    super(detail.message);
  }
}

export function streamIdOf(agentId: string): string {
  return `agent-${agentId}`;
}
