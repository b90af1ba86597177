import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, namespacedStream, namespacedSubject, type OriginatedAgentEvent,
} from '@voice/contracts';
import type { MessageStreams, RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { Logger } from 'pino';
import { GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';
import { AuditEventsStore } from './audit-events.store.js';
import { agentEventEntries, isAuditedAgentEventType } from './audit.rules.js';

export const AGENT_EVENTS_AUDIT_DURABLE = 'api-gateway-audit';

function isAuditedType(value: unknown): boolean {
  return typeof value === 'object' && value !== null && isAuditedAgentEventType((value as { type?: unknown }).type);
}

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
 * made each change (the key and client address the gateway passed on with the command). A durable consumer of
 * its own: every gateway replica shares it, each event is written once (by its event id) and acknowledged only
 * after the write committed, so a gateway that dies mid-batch leaves it to be delivered again.
 */
@Injectable()
export class AgentEventsAudit implements OnApplicationBootstrap, OnApplicationShutdown {
  private running?: RunningConsumer;

  constructor(
    private readonly store: AuditEventsStore,
    @Inject(MESSAGE_STREAMS) private readonly streams: MessageStreams,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const namespace = this.settings.namespace;
    this.running = await this.streams.consume(
      {
        stream: namespacedStream(namespace, AGENT_EVENTS_STREAM),
        subjects: [namespacedSubject(namespace, `${AGENT_EVENTS_SUBJECT_ROOT}.>`)],
        durable: AGENT_EVENTS_AUDIT_DURABLE,
        logger: this.logger,
      },
      (batch) => this.handle(batch),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }

  /** One delivery: notices are acknowledged, malformed events terminated, the rest written in one statement, then acknowledged. */
  async handle(messages: readonly StreamMessage[]): Promise<void> {
    const events: Array<{ message: StreamMessage; event: OriginatedAgentEvent }> = [];
    for (const message of messages) {
      // The stream also carries notices (a failed platform sync, a refused key) that change nothing: not audited.
      if (!isAuditedType(message.data)) message.ack();
      else if (isAuditableAgentEvent(message.data)) events.push({ message, event: message.data });
      else {
        this.logger.warn({ subject: message.subject }, 'malformed agent event for the audit log; terminated');
        message.term('malformed agent event');
      }
    }
    await this.store.append(events.flatMap(({ event }) => agentEventEntries(event)));
    for (const { message } of events) message.ack();
  }
}
