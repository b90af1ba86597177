import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type ConversationStats, type ConversationStatsRequest } from '@voice/contracts';
import { GetConversationStats } from './conversation-stats.query.js';

@Controller()
export class ConversationStatsMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.stats)
  stats(@Payload() request: ConversationStatsRequest): Promise<ConversationStats> {
    return this.queryBus.execute(new GetConversationStats(request.account_id, request.query ?? {}));
  }
}
