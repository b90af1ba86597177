/**
 * What becomes an outbound event: the agents' integration events and the recorded conversation changes, each
 * turned into at most one event, and which endpoints it goes to. Pure.
 */
import {
  AgentEventTypes, type AgentIntegrationEvent, type ConversationChange, type OutboundAgentData, type OutboundConversationData, type OutboundEventData,
  type OutboundEventType,
} from '@voice/contracts';

/** An event about to be recorded: `source_key` makes a redelivered source change record nothing new. */
export interface EventDraft<Data extends OutboundEventData = OutboundEventData> {
  account_id: string;
  type: OutboundEventType;
  source_key: string;
  agent_id: string | null;
  conversation_id: string | null;
  /** When the change happened, when its source says; else the event's timestamp is when it is recorded. */
  occurred_at: string | null;
  data: Data;
  /** An update of a call in progress: its deliveries are coalesced per conversation (COALESCE_WINDOW_MS). */
  coalesced?: boolean;
}

/** In-progress conversation updates reach an endpoint at most once per conversation per this long. */
export const COALESCE_WINDOW_MS = 5_000;

/**
 * When a coalesced update's first attempt is due: as soon as the schedule says, but not within the window of the
 * conversation's previous update to that endpoint (`previousWindowAt`, when it first was due).
 */
export function coalescedFirstAttempt(now: Date, firstDelayMs: number, previousWindowAt: Date | undefined): Date {
  const soonest = now.getTime() + firstDelayMs;
  return new Date(previousWindowAt ? Math.max(soonest, previousWindowAt.getTime() + COALESCE_WINDOW_MS) : soonest);
}

const AGENT_EVENT_TYPES: Record<string, OutboundEventType> = {
  [AgentEventTypes.created]: 'agent.created',
  [AgentEventTypes.updated]: 'agent.updated',
  [AgentEventTypes.paused]: 'agent.updated',
  [AgentEventTypes.resumed]: 'agent.updated',
  [AgentEventTypes.phoneNumberAssigned]: 'agent.updated',
  [AgentEventTypes.deleted]: 'agent.deleted',
};

export function agentEventDraft(event: AgentIntegrationEvent): EventDraft<OutboundAgentData> | undefined {
  const type = AGENT_EVENT_TYPES[event.type];
  if (!type) return undefined;
  const { account_id, agent_id, ...agent } = event.agent;
  const data: OutboundAgentData = { agent: { id: agent_id, ...agent }, version: event.version };
  return {
    account_id,
    type,
    source_key: `agent:${event.id}`,
    agent_id,
    conversation_id: null,
    occurred_at: event.occurred_at,
    data,
  };
}

/**
 * A change of a conversation that already ended is `conversation.updated` (an analysis arriving late); the
 * first change that shows it completed, failed or abandoned is `conversation.ended`; its first change is
 * `conversation.started`. `alreadyEnded`: whether `conversation.ended` was recorded for it before.
 */
export function conversationEventDraft(change: ConversationChange, alreadyEnded: boolean): EventDraft<OutboundConversationData> {
  const conversation = change.conversation;
  const ended = conversation.status !== 'in_progress';
  const data: OutboundConversationData = { conversation, sequence: change.version };
  const type: OutboundEventType = ended && !alreadyEnded ? 'conversation.ended' : change.type === 'conversation.created' && !ended ? 'conversation.started' : 'conversation.updated';
  return {
    account_id: change.account_id,
    type,
    source_key: `conversation:${change.account_id}:${conversation.id}:${change.version}`,
    agent_id: conversation.agent_id,
    conversation_id: conversation.id,
    occurred_at: null,
    data,
    ...(type === 'conversation.updated' && !ended ? { coalesced: true } : {}),
  };
}

export interface EndpointFilter {
  id: string;
  enabled: boolean;
  event_types: readonly string[] | null;
  agent_ids: readonly string[] | null;
}

/** The endpoints of the event's account that want it: enabled, of its type, and (when they name agents) of its agent. */
export function endpointsFor(event: Pick<EventDraft, 'type' | 'agent_id'>, endpoints: readonly EndpointFilter[]): string[] {
  return endpoints
    .filter((endpoint) => endpoint.enabled)
    .filter((endpoint) => endpoint.event_types === null || endpoint.event_types.includes(event.type))
    .filter((endpoint) => endpoint.agent_ids === null || (event.agent_id !== null && endpoint.agent_ids.includes(event.agent_id)))
    .map((endpoint) => endpoint.id);
}
