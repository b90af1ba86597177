import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type CheckAnsweringReply, type CheckAnsweringRequest } from '@voice/contracts';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { checkAnswering } from './check-answering.js';

/** Asked by the gateway's call-event ingest, so a call a paused or deleted agent will not answer is refused with 422 up front. */
@Controller()
export class CheckAnsweringMessageController {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  @MessagePattern(ConversationsRpc.checkAnswering)
  checkAnswering(@Payload() request: CheckAnsweringRequest): Promise<CheckAnsweringReply> {
    return checkAnswering(this.ctx.dataSource, request);
  }
}
