import { Controller, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, type DeleteAgentReply, type DeleteAgentRequest } from '@voice/contracts';
import { fail, ProgressInterceptor } from '@voice/service-kit';
import { expectedVersionOf } from '../agent/agent.request.js';
import { DeleteAgentCommand } from './delete-agent.command.js';

/** Waits for the platform sync (up to PLATFORM_SYNC_INLINE_MS): tells the gateway it is alive meanwhile. */
@Controller()
@UseInterceptors(ProgressInterceptor)
export class DeleteAgentMessageController {
  constructor(private readonly commands: CommandBus) {}

  @MessagePattern(AgentsRpc.delete)
  delete(@Payload() request: DeleteAgentRequest): Promise<DeleteAgentReply> {
    if (typeof request?.agent_id !== 'string') fail('not_found', 'No agent with this id exists.');
    return this.commands.execute(new DeleteAgentCommand(request.account_id, request.agent_id, expectedVersionOf(request)));
  }
}
