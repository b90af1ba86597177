import { Query } from '@nestjs/cqrs';
import type { TranscriptReply } from '@voice/contracts';

export class GetTranscript extends Query<TranscriptReply> {
  constructor(readonly accountId: string, readonly conversationId: string, readonly format: string) {
    super();
  }
}
