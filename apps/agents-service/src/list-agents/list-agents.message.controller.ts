import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, type AgentView, type ListAgentsRequest, type PageResult } from '@voice/contracts';
import { ServiceFailure } from '@voice/service-kit';
import { parseListAgentsQuery } from './list-agents.params.js';
import { ListAgentsQuery } from './list-agents.query.js';

@Controller()
export class ListAgentsMessageController {
  constructor(private readonly queries: QueryBus) {}

  @MessagePattern(AgentsRpc.list)
  list(@Payload() request: ListAgentsRequest): Promise<PageResult<AgentView>> {
    const parsed = parseListAgentsQuery(request.query);
    if ('problem' in parsed) throw new ServiceFailure(parsed.problem);
    return this.queries.execute(new ListAgentsQuery(request.account_id, parsed.params));
  }
}
