/**
 * What AGENT_EVENTS carries of the platform sync's and the integrations' own records (AgentNoticeTypes), besides
 * the agents' changes: a failed sync and a refused key, each from its recorded event alone. Pure.
 */
import {
  AgentNoticeTypes, type AgentSnapshot, type AgentSyncFailedNotice, type IntegrationCredentialsRefusedNotice,
} from '@voice/contracts';
import type { IntegrationCredentialsRefusedData } from '../integrations/integration.store.js';
import type { AgentSyncFailed } from '../platform-sync/platform-sync.events.js';

/** The recorded event as the relay reads it. */
export interface RecordedNoticeEvent {
  event_id: string;
  type: string;
  data: unknown;
}

/**
 * AgentSyncFailed becomes a notice carrying the agent as the failed version showed it; every other sync event
 * (progress, success, drift) stays in agents-service.
 */
export function syncFailedNotice(event: RecordedNoticeEvent, agentAtAttempt: AgentSnapshot): AgentSyncFailedNotice | undefined {
  if (event.type !== AgentNoticeTypes.syncFailed) return undefined;
  const data = event.data as AgentSyncFailed['data'];
  return {
    id: event.event_id,
    type: AgentNoticeTypes.syncFailed,
    version: data.attempted_version,
    occurred_at: data.at,
    agent: agentAtAttempt,
    failure: {
      code: data.error.code,
      message: data.error.message,
      ...(data.error.field !== undefined ? { field: data.error.field } : {}),
      permanent: data.permanent,
      platform: data.platform,
      ...(data.attempt !== undefined ? { attempt: data.attempt } : {}),
    },
  };
}

/** The version of the agent a sync event was about, when it is one the relay announces. */
export function announcedSyncVersion(event: RecordedNoticeEvent): number | undefined {
  return event.type === AgentNoticeTypes.syncFailed ? (event.data as AgentSyncFailed['data']).attempted_version : undefined;
}

export function credentialsRefusedNotice(event: RecordedNoticeEvent): IntegrationCredentialsRefusedNotice | undefined {
  if (event.type !== AgentNoticeTypes.credentialsRefused) return undefined;
  const data = event.data as IntegrationCredentialsRefusedData;
  return {
    id: event.event_id,
    type: AgentNoticeTypes.credentialsRefused,
    occurred_at: data.at,
    account_id: data.account_id,
    integration_id: data.integration_id,
    platform: data.platform,
    reason: data.reason,
  };
}
