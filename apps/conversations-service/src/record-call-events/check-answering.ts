import type { CheckAnsweringReply, CheckAnsweringRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import type { DataSource } from 'typeorm';
import { findAgents } from '../agent-directory/known-agents.store.js';
import { judgeCall, type Refusal } from '../conversation/answering.rules.js';

/** The gateway asks about one call-event batch (at most 500 events); the bound leaves room without being unbounded. */
const MAX_EVENTS = 1000;

/**
 * An event as the pre-check is asked about it. `type` and `id` are optional: a
 * caller that sends them gets the exact rule; without a type, any event of a
 * conversation neither recorded nor refused may be its start (see below).
 */
type CheckedEvent = CheckAnsweringRequest['events'][number] & { type?: string; id?: string };

/**
 * The rule recording applies (answering-rule.ts), asked before the events are
 * published so HTTP ingest can refuse them with 422. Read-only: it refuses per
 * (b) (a conversation refused before) and (c) (the request holds the call's
 * start, which occurred once its agent was paused or deleted), and writes no
 * refusal — recording does that when the events arrive. Recording applies the
 * rule again, so an event accepted here while a pause is still on its way is
 * refused there.
 *
 * An event sent without its `type` cannot be told apart from a start: for a
 * conversation neither recorded nor refused, the earliest of the request's
 * untyped events is taken as a possible start (the pre-check's earlier
 * behaviour), so a call starting during a pause is still answered 422 by a
 * caller that does not send types. Such a caller may be refused an end that
 * arrives before a start from before the pause; a caller that sends `type` is not.
 */
export async function checkAnswering(db: DataSource, request: CheckAnsweringRequest): Promise<CheckAnsweringReply> {
  const events = request?.events as CheckedEvent[] | undefined;
  if (
    typeof request?.account_id !== 'string' || !Array.isArray(events) || events.length > MAX_EVENTS ||
    events.some((e) =>
      typeof e?.conversation_id !== 'string' || typeof e.agent_id !== 'string' || Number.isNaN(Date.parse(e.occurred_at)) ||
      (e.type !== undefined && typeof e.type !== 'string') || (e.id !== undefined && typeof e.id !== 'string'))
  ) {
    fail('invalid_request', `events must be an array of at most ${MAX_EVENTS} { conversation_id, agent_id, occurred_at, type?, id? }.`);
  }
  if (events.length === 0) return { refused: [] };
  const accountId = request.account_id;
  const agents = await findAgents(db, [...new Set(events.map((e) => e.agent_id))]);
  // The account's conversations: events of its agents, and of agents not known here yet (the gateway checked they are the account's).
  const byConversation = new Map<string, Array<{ event: CheckedEvent; index: number }>>();
  events.forEach((event, index) => {
    const agent = agents.get(event.agent_id);
    if (agent && agent.account_id !== accountId) return;
    const list = byConversation.get(event.conversation_id);
    if (list) list.push({ event, index });
    else byConversation.set(event.conversation_id, [{ event, index }]);
  });
  if (byConversation.size === 0) return { refused: [] };

  const conversationIds = [...byConversation.keys()];
  const rows: Array<{ id: string; recorded: boolean; agent_id: string | null; status: string | null }> = await db.query(
    `SELECT k.id, r.agent_id, r.status,
            EXISTS (SELECT 1 FROM conversations.conversations c WHERE c.account_id = $1 AND c.id = k.id) AS recorded
       FROM unnest($2::text[]) AS k(id)
       LEFT JOIN conversations.refused_conversations r ON r.account_id = $1 AND r.conversation_id = k.id`,
    [accountId, conversationIds],
  );
  const known = new Map(rows.map((r) => [r.id, { recorded: r.recorded, refused: r.agent_id === null ? undefined : ({ agent_id: r.agent_id, status: r.status! } satisfies Refusal) }]));

  const refused: CheckAnsweringReply['refused'] = [];
  for (const [conversationId, items] of byConversation) {
    const verdict = judgeCall({
      recorded: known.get(conversationId)?.recorded ?? false,
      refused: known.get(conversationId)?.refused,
      events: items.map(({ event }) => ({ type: event.type, occurred_at: event.occurred_at, id: event.id, agent: agents.get(event.agent_id) })),
      untypedMayStart: true,
    });
    if (verdict.answered) continue;
    for (const { event, index } of items) refused.push({ index, agent_id: event.agent_id, status: verdict.status });
  }
  return { refused: refused.sort((a, b) => a.index - b.index) };
}
