import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { AgentView, PageResult } from '@voice/contracts';
import { toAgentView } from '../agent/agent.view.js';
import { ListAgentsQuery } from './list-agents.query.js';
import { ListAgentsStore } from './list-agents.store.js';

@QueryHandler(ListAgentsQuery)
export class ListAgentsHandler implements IQueryHandler<ListAgentsQuery> {
  constructor(private readonly store: ListAgentsStore) {}

  async execute({ accountId, params }: ListAgentsQuery): Promise<PageResult<AgentView>> {
    const { agents, total } = await this.store.page(accountId, params);
    return { items: agents.map((record) => toAgentView(record.state, record.sync)), total, page: params.page, per_page: params.per_page };
  }
}
