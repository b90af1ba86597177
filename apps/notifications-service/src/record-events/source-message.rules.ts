/** The shapes this service reads from the bus, checked before anything is recorded from them. Pure. */
import {
  AgentNoticeTypes, isPlainObject, isVoicePlatform, type AgentIntegrationEvent, type AgentStreamMessage, type AgentSyncFailedNotice, type ConversationChange,
  type IntegrationCredentialsRefusedNotice,
} from '@voice/contracts';

export function isAgentEvent(value: unknown): value is AgentIntegrationEvent {
  return isPlainObject(value) && typeof value.id === 'string' && typeof value.type === 'string' && isPlainObject(value.agent)
    && typeof value.agent.account_id === 'string' && typeof value.agent.agent_id === 'string';
}

/** A failed sync: the agent as its change events carry it, and the failure's code, words, permanence and platform. */
export function isSyncFailedNotice(value: unknown): value is AgentSyncFailedNotice {
  if (!isAgentEvent(value)) return false;
  const notice = value as unknown as Record<string, unknown>;
  return notice.type === AgentNoticeTypes.syncFailed && Number.isInteger(notice.version) && typeof notice.occurred_at === 'string'
    && isPlainObject(notice.failure) && isSyncFailure(notice.failure as unknown as AgentSyncFailedNotice['failure']);
}

function isSyncFailure(failure: AgentSyncFailedNotice['failure']): boolean {
  return typeof failure.code === 'string' && typeof failure.message === 'string' && typeof failure.permanent === 'boolean' && isVoicePlatform(failure.platform)
    && (failure.field === undefined || typeof failure.field === 'string') && (failure.attempt === undefined || Number.isInteger(failure.attempt));
}

export function isCredentialsRefusedNotice(value: unknown): value is IntegrationCredentialsRefusedNotice {
  return isPlainObject(value) && value.type === AgentNoticeTypes.credentialsRefused && typeof value.id === 'string' && typeof value.account_id === 'string'
    && isVoicePlatform(value.platform) && typeof value.occurred_at === 'string' && typeof value.reason === 'string';
}

/** Any message of AGENT_EVENTS: an agent's change or one of agents-service's notices, each of its own shape. */
export function isAgentStreamMessage(value: unknown): value is AgentStreamMessage {
  if (!isPlainObject(value)) return false;
  if (value.type === AgentNoticeTypes.syncFailed) return isSyncFailedNotice(value);
  if (value.type === AgentNoticeTypes.credentialsRefused) return isCredentialsRefusedNotice(value);
  return isAgentEvent(value);
}

export function isConversationChange(value: unknown): value is ConversationChange {
  return isPlainObject(value) && typeof value.account_id === 'string' && typeof value.type === 'string' && Number.isInteger(value.version)
    && isPlainObject(value.conversation) && typeof value.conversation.id === 'string' && typeof value.conversation.status === 'string'
    && typeof value.conversation.agent_id === 'string';
}
