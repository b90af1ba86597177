import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ConversationsRpc, type GetTranscriptRequest, type TranscriptReply } from '@voice/contracts';
import { GetTranscript } from './get-transcript.query.js';

@Controller()
export class GetTranscriptMessageController {
  constructor(private readonly queryBus: QueryBus) {}

  @MessagePattern(ConversationsRpc.transcript)
  transcript(@Payload() request: GetTranscriptRequest): Promise<TranscriptReply> {
    return this.queryBus.execute(new GetTranscript(request.account_id, request.conversation_id, request.format ?? 'json'));
  }
}
