import { Query } from '@nestjs/cqrs';
import type { AgentReply } from '@voice/contracts';

export class GetAgentQuery extends Query<AgentReply> {
  constructor(readonly accountId: string, readonly agentId: string) {
    super();
  }
}
