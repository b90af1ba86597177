import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type ConversationDetail, type GetConversationRequest } from '@voice/contracts';
import { GetConversation } from './get-conversation.query.js';

@Controller()
export class GetConversationMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.get)
  get(@Payload() request: GetConversationRequest): Promise<ConversationDetail> {
    return this.queryBus.execute(new GetConversation(request.account_id, request.conversation_id));
  }
}
