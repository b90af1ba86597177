import type { CheckAnsweringReply, CheckAnsweringRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import type { DataSource } from 'typeorm';
import { findAgents } from '../agent-directory/known-agents.js';
import { agentStatusAt, answersCallStartingAt, mayRefuseCalls } from '../conversation/agent-policy.rules.js';

/** One call-event batch holds at most 500 events. */
const MAX_EVENTS = 1000;

/**
 * The rule recording applies (record-call-events.ts), asked before the events
 * are published so HTTP ingest can refuse them with 422: which events belong to
 * calls that started (first event, stored or in this batch) once their agent
 * was paused or deleted. Read-only; recording applies the rule again, so an
 * event accepted here while a pause is still on its way is refused there.
 */
export async function checkAnswering(db: DataSource, request: CheckAnsweringRequest): Promise<CheckAnsweringReply> {
  const events = request?.events;
  if (
    typeof request?.account_id !== 'string' || !Array.isArray(events) || events.length > MAX_EVENTS ||
    events.some((e) => typeof e?.conversation_id !== 'string' || typeof e.agent_id !== 'string' || Number.isNaN(Date.parse(e.occurred_at)))
  ) {
    fail('invalid_request', `events must be an array of at most ${MAX_EVENTS} { conversation_id, agent_id, occurred_at }.`);
  }
  const agents = await findAgents(db, [...new Set(events.map((e) => e.agent_id))]);
  const suspects = events
    .map((event, index) => ({ event, index, agent: agents.get(event.agent_id) }))
    .filter(({ agent }) => agent !== undefined && agent.account_id === request.account_id && mayRefuseCalls(agent.history));
  if (suspects.length === 0) return { refused: [] };

  const firstAt = new Map<string, number>();
  const earliest = (conversationId: string, ms: number) => firstAt.set(conversationId, Math.min(firstAt.get(conversationId) ?? Infinity, ms));
  const conversationIds = [...new Set(suspects.map((s) => s.event.conversation_id))];
  const stored: Array<{ id: string; first_event_at: string }> = await db.query(
    `SELECT id, detail->>'first_event_at' AS first_event_at FROM conversations.conversations WHERE account_id = $1 AND id = ANY($2::text[])`,
    [request.account_id, conversationIds],
  );
  for (const row of stored) earliest(row.id, Date.parse(row.first_event_at));
  for (const event of events) earliest(event.conversation_id, Date.parse(event.occurred_at));

  const refused: CheckAnsweringReply['refused'] = [];
  for (const { event, index, agent } of suspects) {
    const startedMs = firstAt.get(event.conversation_id)!;
    if (!answersCallStartingAt(agent!.history, startedMs)) refused.push({ index, agent_id: event.agent_id, status: agentStatusAt(agent!.history, startedMs) });
  }
  return { refused };
}
