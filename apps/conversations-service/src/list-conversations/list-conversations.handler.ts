import { Inject, Optional } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ConversationListItem, PageResult } from '@voice/contracts';
import { ServiceFailure } from '@voice/service-kit';
import { ACCOUNT_COLUMNS, readFor, SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { toIso } from '../conversation/conversation.views.js';
import { parseListQuery } from './list-conversations.params.js';
import { ListConversations } from './list-conversations.query.js';
import { readConversationPage, type ListRow } from './list-conversations.store.js';
import { readPageByKeys } from './page-by-keys.js';
import type { PagesInMemory } from './pages-in-memory.js';

/**
 * Parse the query, read the page (list-conversations.store.ts), answer it in the public shape. A substring search of
 * an account whose columns are held in memory is paged from them (pages-in-memory.ts), on the primary where they
 * are kept: finding every match again is the whole cost of such a page in SQL.
 */
@QueryHandler(ListConversations)
export class ListConversationsHandler implements IQueryHandler<ListConversations, PageResult<ConversationListItem>> {
  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'dataSource' | 'tuning'> & Partial<Pick<ServiceContext, 'reads'>>,
    @Optional() @Inject(ACCOUNT_COLUMNS) private readonly memory?: PagesInMemory,
  ) {}

  async execute({ accountId, query }: ListConversations): Promise<PageResult<ConversationListItem>> {
    const parsed = parseListQuery(query);
    if (!parsed.ok) throw new ServiceFailure(parsed.problem);
    const f = parsed.filter;
    const { rows, total } = (await this.memory?.withPageKeys(accountId, f, (db, page) => readPageByKeys(db, accountId, f, page)))
      ?? (await readFor(this.ctx, accountId, (db) => readConversationPage(db, accountId, f, this.ctx.tuning.deepPageOffset)));
    return { items: rows.map(toItem), total, page: f.page, per_page: f.per_page };
  }
}

function toItem(r: ListRow): ConversationListItem {
  return {
    id: r.id,
    agent_id: r.agent_id,
    agent_name: r.agent_name,
    caller_number: r.caller_number,
    status: r.status,
    start_time: toIso(r.start_time),
    end_time: r.end_time ? toIso(r.end_time) : null,
    duration: r.duration,
    sentiment: r.sentiment,
    outcome: r.outcome,
    topics: r.topics,
    has_recording: r.has_recording,
    has_transcript: r.has_transcript,
    summary: r.summary,
    created_at: toIso(r.created_at),
  };
}
