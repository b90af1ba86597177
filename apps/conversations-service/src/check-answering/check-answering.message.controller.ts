import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type CheckAnsweringReply, type CheckAnsweringRequest } from '@voice/contracts';
import { CheckAnswering } from './check-answering.query.js';

/** Asked by the gateway's call-event ingest, so a call a paused or deleted agent will not answer is refused with 422 up front. */
@Controller()
export class CheckAnsweringMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.checkAnswering)
  checkAnswering(@Payload() request: CheckAnsweringRequest): Promise<CheckAnsweringReply> {
    return this.queryBus.execute(new CheckAnswering(request));
  }
}
