import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ConversationDetail } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { readFor, SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { readConversation } from '../conversation/conversation.store.js';
import { toDetail, toIso } from '../conversation/conversation.views.js';
import { GetConversation } from './get-conversation.query.js';

@QueryHandler(GetConversation)
export class GetConversationHandler implements IQueryHandler<GetConversation, ConversationDetail> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  async execute({ accountId, conversationId }: GetConversation): Promise<ConversationDetail> {
    const stored = await readFor(this.ctx, accountId, (db) => readConversation(db, accountId, conversationId));
    if (!stored) return fail('not_found', `No conversation with id ${conversationId}.`);
    return toDetail(
      stored.state,
      { name: stored.agent_name, voice_platform: stored.voice_platform },
      { created_at: toIso(stored.created_at), updated_at: toIso(stored.updated_at) },
    );
  }
}
