import { Controller, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, findUpdateAgentProblem, UpdateAgentPayload, type AgentReply, type UpdateAgentRequest } from '@voice/contracts';
import { fail, ProgressInterceptor } from '@voice/service-kit';
import { expectedVersionOf, parsePayload } from '../agent/agent.request.js';
import { UpdateAgentCommand } from './update-agent.command.js';

/** Waits for the platform sync (up to PLATFORM_SYNC_INLINE_MS): tells the gateway it is alive meanwhile. */
@Controller()
@UseInterceptors(ProgressInterceptor)
export class UpdateAgentMessageController {
  constructor(private readonly commands: CommandBus) {}

  @MessagePattern(AgentsRpc.update)
  update(@Payload() request: UpdateAgentRequest): Promise<AgentReply> {
    if (typeof request?.agent_id !== 'string') fail('not_found', 'No agent with this id exists.');
    const payload = parsePayload(UpdateAgentPayload, request.body, findUpdateAgentProblem);
    return this.commands.execute(new UpdateAgentCommand(request.account, request.agent_id, payload, expectedVersionOf(request)));
  }
}
