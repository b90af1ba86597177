import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type ConversationListItem, type ListConversationsRequest, type PageResult } from '@voice/contracts';
import { ListConversations } from './list-conversations.query.js';

@Controller()
export class ListConversationsMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.list)
  list(@Payload() request: ListConversationsRequest): Promise<PageResult<ConversationListItem>> {
    return this.queryBus.execute(new ListConversations(request.account_id, request.query ?? {}));
  }
}
