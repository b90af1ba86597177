import { Query } from '@nestjs/cqrs';
import type { ConversationDetail } from '@voice/contracts';

export class GetConversation extends Query<ConversationDetail> {
  constructor(readonly accountId: string, readonly conversationId: string) {
    super();
  }
}
