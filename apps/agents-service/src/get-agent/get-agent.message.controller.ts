import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, type AgentReply, type GetAgentRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { GetAgentQuery } from './get-agent.query.js';

@Controller()
export class GetAgentMessageController {
  constructor(private readonly queries: QueryBus) {}

  @MessagePattern(AgentsRpc.get)
  get(@Payload() request: GetAgentRequest): Promise<AgentReply> {
    if (typeof request?.agent_id !== 'string') fail('not_found', 'No agent with this id exists.');
    return this.queries.execute(new GetAgentQuery(request.account_id, request.agent_id));
  }
}
