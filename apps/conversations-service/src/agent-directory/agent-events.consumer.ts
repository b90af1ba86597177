import { Inject, Injectable } from '@nestjs/common';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, type AgentIntegrationEvent } from '@voice/contracts';
import { inTransaction, type StreamMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { StreamConsumer } from '../config/stream-consumer.js';
import { isAgentIntegrationEvent } from './agent-event.guard.js';
import { rememberAgent } from './known-agents.js';

export const AGENT_EVENTS_DURABLE = 'conversations-service-agents';

/** Keeps conversations.agents up to date from the agents outbox (highest version wins). */
@Injectable()
export class AgentEventsConsumer extends StreamConsumer {
  constructor(@Inject(SERVICE_CONTEXT) ctx: ServiceContext) {
    super(ctx, { stream: AGENT_EVENTS_STREAM, subjectRoot: AGENT_EVENTS_SUBJECT_ROOT, durable: AGENT_EVENTS_DURABLE });
  }

  override async handle(messages: StreamMessage[]): Promise<void> {
    const { logger, dataSource } = this.ctx;
    const valid: Array<{ message: StreamMessage; event: AgentIntegrationEvent }> = [];
    for (const message of messages) {
      if (isAgentIntegrationEvent(message.data)) valid.push({ message, event: message.data });
      else {
        logger.warn({ subject: message.subject }, 'malformed agent event; terminated');
        message.term('malformed agent event');
      }
    }
    if (valid.length === 0) return;
    await inTransaction(dataSource, async (runner) => {
      for (const { event } of valid) await rememberAgent(runner, event);
    });
    for (const { message } of valid) message.ack();
  }
}
