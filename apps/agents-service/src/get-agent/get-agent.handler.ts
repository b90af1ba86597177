import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { AgentReply } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { AgentStore } from '../agent/agent.store.js';
import { toAgentView } from '../agent/agent.view.js';
import { GetAgentQuery } from './get-agent.query.js';

@QueryHandler(GetAgentQuery)
export class GetAgentHandler implements IQueryHandler<GetAgentQuery> {
  constructor(private readonly store: AgentStore) {}

  /** Another account's agent and a deleted agent are both simply not found: existence is not revealed. */
  async execute({ accountId, agentId }: GetAgentQuery): Promise<AgentReply> {
    const state = await this.store.findLive(accountId, agentId);
    if (!state) fail('not_found', 'No agent with this id exists.');
    return { agent: toAgentView(state), version: state.version };
  }
}
