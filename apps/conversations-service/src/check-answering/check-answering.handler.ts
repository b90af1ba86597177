import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { CheckAnsweringReply } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { findAgents } from '../agent-directory/known-agents.store.js';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { checkedConversations, isCheckAnsweringRequest, MAX_CHECKED_EVENTS, refusedEvents } from './check-answering.rules.js';
import { CheckAnswering } from './check-answering.query.js';
import { findStanding } from './check-answering.store.js';

/** Read-only: see check-answering.rules.ts. */
@QueryHandler(CheckAnswering)
export class CheckAnsweringHandler implements IQueryHandler<CheckAnswering, CheckAnsweringReply> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  async execute({ request }: CheckAnswering): Promise<CheckAnsweringReply> {
    if (!isCheckAnsweringRequest(request)) {
      fail('invalid_request', `events must be an array of at most ${MAX_CHECKED_EVENTS} { conversation_id, agent_id, occurred_at, type?, id? }.`);
    }
    if (request.events.length === 0) return { refused: [] };
    const db = this.ctx.dataSource;
    const agents = await findAgents(db, [...new Set(request.events.map((e) => e.agent_id))]);
    const conversations = checkedConversations(request, agents);
    if (conversations.size === 0) return { refused: [] };
    const standing = await findStanding(db, request.account_id, [...conversations.keys()]);
    return { refused: refusedEvents(conversations, agents, standing) };
  }
}
