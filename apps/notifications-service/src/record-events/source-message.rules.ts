/** The shapes this service reads from the bus, checked before anything is recorded from them. Pure. */
import type { AgentIntegrationEvent, ConversationChange } from '@voice/contracts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isAgentEvent(value: unknown): value is AgentIntegrationEvent {
  return isObject(value) && typeof value.id === 'string' && typeof value.type === 'string' && isObject(value.agent)
    && typeof value.agent.account_id === 'string' && typeof value.agent.agent_id === 'string';
}

export function isConversationChange(value: unknown): value is ConversationChange {
  return isObject(value) && typeof value.account_id === 'string' && typeof value.type === 'string' && Number.isInteger(value.version)
    && isObject(value.conversation) && typeof value.conversation.id === 'string' && typeof value.conversation.status === 'string'
    && typeof value.conversation.agent_id === 'string';
}
