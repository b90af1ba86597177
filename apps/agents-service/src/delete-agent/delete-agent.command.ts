import { Command } from '@nestjs/cqrs';
import type { DeleteAgentReply } from '@voice/contracts';

export class DeleteAgentCommand extends Command<DeleteAgentReply> {
  constructor(readonly accountId: string, readonly agentId: string, readonly expectedVersion?: number) {
    super();
  }
}
