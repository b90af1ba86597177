import { Command } from '@nestjs/cqrs';
import type { AccountContext, AgentReply, CreateAgentPayload } from '@voice/contracts';

export class CreateAgentCommand extends Command<AgentReply> {
  constructor(readonly account: AccountContext, readonly payload: CreateAgentPayload) {
    super();
  }
}
