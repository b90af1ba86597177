import { Inject, Injectable } from '@nestjs/common';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, type AgentIntegrationEvent } from '@voice/contracts';
import { inTransaction, type StreamMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { StreamConsumer } from '../config/stream-consumer.js';
import { lockAgents } from '../database/locks.js';
import { ParkedEventsReplayer } from '../record-call-events/parked-events-replay.js';
import { isAgentIntegrationEvent } from './agent-event.guard.js';
import { rememberAgent } from './known-agents.store.js';

export const AGENT_EVENTS_DURABLE = 'conversations-service-agents';

/**
 * Keeps conversations.agents (highest version wins) and the agents' status
 * history up to date from the agents outbox. The transaction only makes the
 * agents known, whatever is parked for them; the call events parked while an
 * agent was unknown are recorded right after its commit, in small transactions
 * of their own, by the replayer this consumer runs (parked-events-replay.ts),
 * which also sweeps for any it missed.
 */
@Injectable()
export class AgentEventsConsumer extends StreamConsumer {
  readonly replayer: ParkedEventsReplayer;

  constructor(@Inject(SERVICE_CONTEXT) ctx: ServiceContext) {
    super(ctx, { stream: AGENT_EVENTS_STREAM, subjectRoot: AGENT_EVENTS_SUBJECT_ROOT, durable: AGENT_EVENTS_DURABLE });
    this.replayer = new ParkedEventsReplayer({
      dataSource: ctx.dataSource,
      logger: ctx.logger,
      chunk: ctx.tuning.parkedReplayChunk,
      sweepMs: ctx.tuning.parkedSweepMs,
    });
  }

  override async start(): Promise<void> {
    await super.start();
    this.replayer.start();
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.replayer.stop();
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
    await inTransaction(dataSource, async (runner) => {
      // Exclusive: a call-event batch that found one of these agents unknown either parked its events
      // before this commits (the replay after the commit finds them) or waits and then finds the agent.
      await lockAgents(runner, agentIds, 'exclusive');
      for (const { event } of valid) await rememberAgent(runner, event);
    });
    for (const { message } of valid) message.ack();
    this.replayer.wake(agentIds);
  }
}
