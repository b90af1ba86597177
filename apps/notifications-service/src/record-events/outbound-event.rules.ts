/**
 * What becomes an outbound event: the agents' integration events and the recorded conversation changes, each
 * turned into at most one event, and which endpoints it goes to. Pure.
 */
import {
  AgentEventTypes, AgentNoticeTypes, conversationTranscriptPath, endedDetailForEvent, type AgentIntegrationEvent, type AgentStreamMessage,
  type AgentSyncFailedNotice, type ConversationChange, type IntegrationCredentialsRefusedNotice, type OutboundAgentData,
  type OutboundAgentSyncFailedData, type OutboundConversationData, type OutboundConversationEndedData, type OutboundCredentialsInvalidData,
  type OutboundEventData, type OutboundEventType,
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

/** A message of AGENT_EVENTS as an event: an agent's change, a failed sync, or a refused key. */
export function agentStreamDraft(message: AgentStreamMessage): EventDraft | undefined {
  switch (message.type) {
    case AgentNoticeTypes.syncFailed:
      return syncFailedDraft(message);
    case AgentNoticeTypes.credentialsRefused:
      return credentialsInvalidDraft(message);
    default:
      return agentEventDraft(message);
  }
}

/** agent.sync_failed: one per failure the sync recorded (its event id is the source). */
export function syncFailedDraft(notice: AgentSyncFailedNotice): EventDraft<OutboundAgentSyncFailedData> {
  const { account_id, agent_id, ...agent } = notice.agent;
  const { code, message, field, permanent, platform, attempt } = notice.failure;
  const failure: OutboundAgentSyncFailedData['failure'] = {
    code, message, ...(field !== undefined ? { field } : {}), permanent, platform, ...(attempt !== undefined ? { attempt } : {}),
  };
  return {
    account_id,
    type: 'agent.sync_failed',
    source_key: `agent:${notice.id}`,
    agent_id,
    conversation_id: null,
    occurred_at: notice.occurred_at,
    data: { agent: { id: agent_id, ...agent }, version: notice.version, failure },
  };
}

/**
 * integration.credentials_invalid: agents-service records a refusal once per stored key (until the integration is
 * configured again), so one event per refusal it recorded.
 */
export function credentialsInvalidDraft(notice: IntegrationCredentialsRefusedNotice): EventDraft<OutboundCredentialsInvalidData> {
  return {
    account_id: notice.account_id,
    type: 'integration.credentials_invalid',
    source_key: `integration:${notice.id}`,
    agent_id: null,
    conversation_id: null,
    occurred_at: notice.occurred_at,
    data: { platform: notice.platform, detected_at: notice.occurred_at, reason: notice.reason },
  };
}

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
export function conversationEventDraft(
  change: ConversationChange,
  alreadyEnded: boolean,
  publicBaseUrl?: string,
): EventDraft<OutboundConversationData | OutboundConversationEndedData> {
  const conversation = change.conversation;
  const ended = conversation.status !== 'in_progress';
  const type: OutboundEventType = ended && !alreadyEnded ? 'conversation.ended' : change.type === 'conversation.created' && !ended ? 'conversation.started' : 'conversation.updated';
  const data = type === 'conversation.ended' && change.ended_detail
    ? endedData(change, change.ended_detail, publicBaseUrl)
    : { conversation, sequence: change.version };
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

/**
 * conversation.ended's data: the call's full record, whole while the body stays within 256 KiB; else without its
 * transcript, and `transcript_url` says where to fetch it (absolute under the deployment's public base URL when
 * one is set, else the API path).
 */
export function endedData(change: Pick<ConversationChange, 'version'>, detail: OutboundConversationEndedData['conversation'], publicBaseUrl?: string): OutboundConversationEndedData {
  const conversation = endedDetailForEvent(detail);
  const data: OutboundConversationEndedData = { conversation, sequence: change.version };
  if (conversation.content.transcript === undefined) data.transcript_url = transcriptUrl(conversation.id, publicBaseUrl);
  return data;
}

export function transcriptUrl(conversationId: string, publicBaseUrl?: string): string {
  const path = conversationTranscriptPath(conversationId);
  return publicBaseUrl ? `${publicBaseUrl.replace(/\/+$/, '')}${path}` : path;
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
