import { Inject, Injectable } from '@nestjs/common';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, type OriginatedAgentEvent } from '@voice/contracts';
import type { MessageStreams } from '@voice/service-kit';
import type { Logger } from 'pino';
import { GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';
import { AuditEventsStore } from './audit-events.store.js';
import { AuditStreamConsumer, type AuditReading } from './audit-stream-consumer.js';
import { agentEventEntries, isAuditedAgentEventType } from './audit.rules.js';

/** Only what the audit entries are made of is checked: the rest of the event is the agents relay's business. */
function isAuditableAgentEvent(value: unknown): value is OriginatedAgentEvent {
  const e = value as Partial<OriginatedAgentEvent> | undefined;
  return (
    typeof e === 'object' && e !== null && typeof e.id === 'string' && typeof e.type === 'string' && typeof e.occurred_at === 'string' &&
    typeof e.agent === 'object' && e.agent !== null && typeof e.agent.agent_id === 'string' && typeof e.agent.account_id === 'string' &&
    (e.changed_fields === undefined || (Array.isArray(e.changed_fields) && e.changed_fields.every((f) => typeof f === 'string')))
  );
}

/**
 * The agent changes of the audit log, read from the agents' own durable events (AGENT_EVENTS), which carry who
 * made each change (the key and client address the gateway passed on with the command).
 */
@Injectable()
export class AgentEventsAudit extends AuditStreamConsumer {
  constructor(
    store: AuditEventsStore,
    @Inject(MESSAGE_STREAMS) streams: MessageStreams,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super({ stream: AGENT_EVENTS_STREAM, subjectRoot: AGENT_EVENTS_SUBJECT_ROOT, what: 'agent event' }, store, streams, settings, logger);
  }

  protected read(data: unknown): AuditReading {
    // The stream also carries notices (a failed platform sync, a refused key) that change nothing: not audited.
    if (typeof data !== 'object' || data === null || !isAuditedAgentEventType((data as { type?: unknown }).type)) return 'not_audited';
    return isAuditableAgentEvent(data) ? { entries: agentEventEntries(data) } : 'malformed';
  }
}
