import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, isAgentNoticeType, type AgentIntegrationEvent } from '@voice/contracts';
import type { StreamMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { StreamConsumer } from '../streams/stream-consumer.js';
import { isAgentIntegrationEvent } from './agent-event.guard.js';
import { RememberAgents, type AgentEventOutcome } from './remember-agents.command.js';

export const AGENT_EVENTS_DURABLE = 'conversations-service-agents';

/**
 * Consumes the agents outbox (AGENT_EVENTS) into what this service knows about
 * agents (RememberAgents), acking after the commit. A malformed message is
 * terminated before the batch's transaction, so a failing batch does not hold it.
 */
@Injectable()
export class AgentEventsConsumer extends StreamConsumer<AgentEventOutcome> {
  constructor(
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    private readonly commandBus: CommandBus,
  ) {
    super(ctx, { stream: AGENT_EVENTS_STREAM, subjectRoot: AGENT_EVENTS_SUBJECT_ROOT, durable: AGENT_EVENTS_DURABLE });
  }

  protected override screen(message: StreamMessage): AgentEventOutcome | undefined {
    if (isAgentNoticeType((message.data as { type?: unknown } | undefined)?.type)) return { result: 'not_a_change' };
    return isAgentIntegrationEvent(message.data) ? undefined : { result: 'malformed' };
  }

  protected override process(messages: readonly StreamMessage[]): Promise<AgentEventOutcome[]> {
    return this.commandBus.execute(new RememberAgents(messages.map((m) => m.data as AgentIntegrationEvent)));
  }

  protected override settle(message: StreamMessage, outcome: AgentEventOutcome): void {
    switch (outcome.result) {
      case 'remembered':
      case 'not_a_change':
        message.ack();
        break;
      case 'malformed':
        this.terminate(message, 'malformed agent event', { subject: message.subject }, 'malformed agent event');
        break;
    }
  }
}
