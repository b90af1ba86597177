import { Query } from '@nestjs/cqrs';
import type { ConversationListItem, PageResult, RawQuery } from '@voice/contracts';

export class ListConversations extends Query<PageResult<ConversationListItem>> {
  constructor(readonly accountId: string, readonly query: RawQuery) {
    super();
  }
}
