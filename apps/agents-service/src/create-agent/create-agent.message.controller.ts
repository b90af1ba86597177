import { Controller, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, CreateAgentPayload, findCreateAgentProblem, type AgentReply, type CreateAgentRequest } from '@voice/contracts';
import { ProgressInterceptor } from '@voice/service-kit';
import { parsePayload } from '../agent/agent.request.js';
import { CreateAgentCommand } from './create-agent.command.js';

/** Waits for the platform sync (up to PLATFORM_SYNC_INLINE_MS): tells the gateway it is alive meanwhile. */
@Controller()
@UseInterceptors(ProgressInterceptor)
export class CreateAgentMessageController {
  constructor(private readonly commands: CommandBus) {}

  @MessagePattern(AgentsRpc.create)
  create(@Payload() request: CreateAgentRequest): Promise<AgentReply> {
    const payload = parsePayload(CreateAgentPayload, request.body, findCreateAgentProblem);
    const key = typeof request.idempotency_key === 'string' && request.idempotency_key.length > 0 ? request.idempotency_key : undefined;
    return this.commands.execute(new CreateAgentCommand(request.account, payload, key));
  }
}
