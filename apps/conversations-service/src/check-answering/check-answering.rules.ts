/**
 * The rule recording applies (conversation/answering.rules.ts), asked before the
 * events are published so HTTP ingest can refuse them with 422. Read-only: it
 * refuses per (b) (a conversation refused before) and (c) (the request holds the
 * call's start, which occurred once its agent was paused or deleted), and writes
 * no refusal — recording does that when the events arrive. Recording applies the
 * rule again, so an event accepted here while a pause is still on its way is
 * refused there.
 *
 * An event sent without its `type` cannot be told apart from a start: for a
 * conversation neither recorded nor refused, the earliest of the request's
 * untyped events is taken as a possible start, so a call starting during a pause
 * is still answered 422 by a caller that does not send types. Such a caller may
 * be refused an end that arrives before a start from before the pause; a caller
 * that sends `type` is not.
 */
import type { CheckAnsweringReply, CheckAnsweringRequest } from '@voice/contracts';
import type { KnownAgent } from '../conversation/agent-policy.rules.js';
import { judgeCall, type Refusal } from '../conversation/answering.rules.js';

/** The gateway asks about one call-event batch (at most 500 events); the bound leaves room without being unbounded. */
export const MAX_CHECKED_EVENTS = 1000;

/**
 * An event as the pre-check is asked about it. `type` and `id` are optional: a
 * caller that sends them gets the exact rule; without a type, any event of a
 * conversation neither recorded nor refused may be its start.
 */
export type CheckedEvent = CheckAnsweringRequest['events'][number] & { type?: string; id?: string };

/** What is known of a conversation of the account. */
export interface ConversationStanding {
  recorded: boolean;
  refused: Refusal | undefined;
}

/** Whether the request has the shape the pre-check answers (it comes over the bus, untyped). */
export function isCheckAnsweringRequest(request: unknown): request is CheckAnsweringRequest {
  const r = request as Partial<CheckAnsweringRequest> | undefined;
  const events = r?.events as CheckedEvent[] | undefined;
  return !(
    typeof r?.account_id !== 'string' || !Array.isArray(events) || events.length > MAX_CHECKED_EVENTS ||
    events.some((e) =>
      typeof e?.conversation_id !== 'string' || typeof e.agent_id !== 'string' || Number.isNaN(Date.parse(e.occurred_at)) ||
      (e.type !== undefined && typeof e.type !== 'string') || (e.id !== undefined && typeof e.id !== 'string'))
  );
}

/**
 * The request's events by conversation of the account (with their positions): events of its agents, and
 * of agents not known here yet (the gateway checked they are the account's). Another account's agent's
 * events are left out.
 */
export function checkedConversations(
  request: CheckAnsweringRequest,
  agents: ReadonlyMap<string, KnownAgent>,
): Map<string, Array<{ event: CheckedEvent; index: number }>> {
  const byConversation = new Map<string, Array<{ event: CheckedEvent; index: number }>>();
  (request.events as CheckedEvent[]).forEach((event, index) => {
    const agent = agents.get(event.agent_id);
    if (agent && agent.account_id !== request.account_id) return;
    const list = byConversation.get(event.conversation_id);
    if (list) list.push({ event, index });
    else byConversation.set(event.conversation_id, [{ event, index }]);
  });
  return byConversation;
}

/** The events the rule refuses, in request order. */
export function refusedEvents(
  conversations: ReadonlyMap<string, ReadonlyArray<{ event: CheckedEvent; index: number }>>,
  agents: ReadonlyMap<string, KnownAgent>,
  standing: ReadonlyMap<string, ConversationStanding>,
): CheckAnsweringReply['refused'] {
  const refused: CheckAnsweringReply['refused'] = [];
  for (const [conversationId, items] of conversations) {
    const verdict = judgeCall({
      recorded: standing.get(conversationId)?.recorded ?? false,
      refused: standing.get(conversationId)?.refused,
      events: items.map(({ event }) => ({ type: event.type, occurred_at: event.occurred_at, id: event.id, agent: agents.get(event.agent_id) })),
      untypedMayStart: true,
    });
    if (verdict.answered) continue;
    for (const { event, index } of items) refused.push({ index, agent_id: event.agent_id, status: verdict.status });
  }
  return refused.sort((a, b) => a.index - b.index);
}
