import { Inject } from '@nestjs/common';
import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { inTransaction } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { lockAgents } from '../database/locks.js';
import { AgentsBecameKnown } from './agents-became-known.event.js';
import { RememberAgents, type AgentEventOutcome } from './remember-agents.command.js';
import { rememberAgent } from './known-agents.store.js';

/**
 * Keeps conversations.agents (highest version wins) and the agents' status
 * history up to date. The transaction only makes the agents known, whatever is
 * parked for them; once it has committed, AgentsBecameKnown tells whoever
 * records the call events parked meanwhile (replay-parked-events/).
 */
@CommandHandler(RememberAgents)
export class RememberAgentsHandler implements ICommandHandler<RememberAgents, AgentEventOutcome[]> {
  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly eventBus: EventBus,
  ) {}

  async execute({ events }: RememberAgents): Promise<AgentEventOutcome[]> {
    const agentIds = [...new Set(events.map((event) => event.agent.agent_id))];
    await inTransaction(this.ctx.dataSource, async (runner) => {
      // Exclusive: a call-event batch that found one of these agents unknown either parked its events
      // before this commits (the replay after the commit finds them) or waits and then finds the agent.
      await lockAgents(runner, agentIds, 'exclusive');
      for (const event of events) await rememberAgent(runner, event);
    });
    this.eventBus.publish(new AgentsBecameKnown(agentIds));
    return events.map(() => ({ result: 'remembered' }));
  }
}
