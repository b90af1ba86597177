import { Inject, Injectable } from '@nestjs/common';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, type AgentIntegrationEvent } from '@voice/contracts';
import { inTransaction, type StreamMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { StreamConsumer } from '../config/stream-consumer.js';
import { lockAgents } from '../record-call-events/locks.js';
import { replayParkedEvents } from '../record-call-events/record-call-events.js';
import { isAgentIntegrationEvent } from './agent-event.guard.js';
import { rememberAgent } from './known-agents.js';

export const AGENT_EVENTS_DURABLE = 'conversations-service-agents';

/**
 * Keeps conversations.agents (highest version wins) and the agents' status
 * history up to date from the agents outbox, and records the call events that
 * were parked while an agent was unknown — in the same transaction, so they are
 * recorded exactly once, as soon as the agent is known.
 */
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
    const agentIds = [...new Set(valid.map(({ event }) => event.agent.agent_id))];
    const replayed = await inTransaction(dataSource, async (runner) => {
      // Exclusive: a call-event batch that found one of these agents unknown either parked its events
      // before this (the replay below finds them) or waits and then finds the agent.
      await lockAgents(runner, agentIds, 'exclusive');
      for (const { event } of valid) await rememberAgent(runner, event);
      return replayParkedEvents(runner, agentIds);
    });
    for (const { message } of valid) message.ack();
    if (replayed.length > 0) {
      const counts: Record<string, number> = {};
      for (const { outcome } of replayed) counts[outcome.result] = (counts[outcome.result] ?? 0) + 1;
      logger.info({ agent_ids: agentIds, ...counts }, `recorded ${replayed.length} parked call events of agents now known`);
      for (const { event, outcome } of replayed) {
        if (outcome.result === 'not_answering') {
          logger.warn({ event_id: event.id, agent_id: event.agent_id, reason: outcome.reason }, 'parked call event of a call the agent does not answer; dropped');
        }
      }
    }
  }
}
