import { Command } from '@nestjs/cqrs';
import type { AccountContext, AgentReply, UpdateAgentPayload } from '@voice/contracts';

export class UpdateAgentCommand extends Command<AgentReply> {
  constructor(
    readonly account: AccountContext,
    readonly agentId: string,
    readonly payload: UpdateAgentPayload,
    /** From If-Match; absent means "whatever the current version is". */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
