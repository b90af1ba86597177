import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type StreamFilter, type StreamFilterRequest } from '@voice/contracts';
import { CheckStreamFilter } from './stream-filter.query.js';

@Controller()
export class StreamFilterMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.streamFilter)
  check(@Payload() request: StreamFilterRequest): Promise<StreamFilter> {
    return this.queryBus.execute(new CheckStreamFilter(request.query ?? {}));
  }
}
