import { Controller, Inject } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ConversationsRpc, type CheckAnsweringReply, type CheckAnsweringRequest, type ConversationDetail, type GetConversationRequest,
} from '@voice/contracts';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { checkAnswering } from '../record-call-events/check-answering.js';
import { GetConversation } from './get-conversation.query.js';

@Controller()
export class GetConversationMessageController {
  constructor(
    private readonly queryBus: QueryBus,
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
  ) {}

  @MessagePattern(ConversationsRpc.get)
  get(@Payload() request: GetConversationRequest): Promise<ConversationDetail> {
    return this.queryBus.execute(new GetConversation(request.account_id, request.conversation_id));
  }

  /**
   * Belongs to call-event ingest (record-call-events/check-answering.ts). Served by this already
   * registered controller only because conversations.module.ts was outside the change that added it;
   * move it to a controller of its own in record-call-events/ and register that in the module.
   */
  @MessagePattern(ConversationsRpc.checkAnswering)
  checkAnswering(@Payload() request: CheckAnsweringRequest): Promise<CheckAnsweringReply> {
    return checkAnswering(this.ctx.dataSource, request);
  }
}
