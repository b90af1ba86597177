import { Query } from '@nestjs/cqrs';
import type { ConversationStats, RawQuery } from '@voice/contracts';

export class GetConversationStats extends Query<ConversationStats> {
  constructor(readonly accountId: string, readonly query: RawQuery) {
    super();
  }
}
