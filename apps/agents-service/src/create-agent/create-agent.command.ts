import { Command } from '@nestjs/cqrs';
import type { AccountContext, AgentReply, CreateAgentPayload } from '@voice/contracts';

export class CreateAgentCommand extends Command<AgentReply> {
  /** `idempotencyKey`: the client's Idempotency-Key, when it sent one (see CreateAgentHandler). */
  constructor(readonly account: AccountContext, readonly payload: CreateAgentPayload, readonly idempotencyKey?: string) {
    super();
  }
}
