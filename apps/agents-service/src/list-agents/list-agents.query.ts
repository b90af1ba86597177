import { Query } from '@nestjs/cqrs';
import type { AgentView, PageResult } from '@voice/contracts';
import type { ListAgentsParams } from './list-agents.params.js';

export class ListAgentsQuery extends Query<PageResult<AgentView>> {
  constructor(readonly accountId: string, readonly params: ListAgentsParams) {
    super();
  }
}
