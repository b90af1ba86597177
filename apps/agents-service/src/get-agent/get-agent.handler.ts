import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { AgentReply } from '@voice/contracts';
import { agentMustExist } from '../agent/agent.rules.js';
import { AgentStore } from '../agent/agent.store.js';
import { agentReply } from '../agent/agent.view.js';
import { GetAgentQuery } from './get-agent.query.js';

@QueryHandler(GetAgentQuery)
export class GetAgentHandler implements IQueryHandler<GetAgentQuery> {
  constructor(private readonly store: AgentStore) {}

  async execute({ accountId, agentId }: GetAgentQuery): Promise<AgentReply> {
    const record = await this.store.readLive(accountId, agentId);
    agentMustExist(record?.state);
    return agentReply(record!);
  }
}
