/**
 * Whether an agent answers a call — the one rule recording (record-call-events/)
 * and the HTTP pre-check (check-answering/) both apply, for one conversation at
 * a time:
 *
 * (a) a conversation already recorded accepts all its later events;
 * (b) a conversation refused before refuses all its later events (refusals are
 *     remembered in conversations.refused_conversations);
 * (c) otherwise, when the events at hand hold the call's start (`call.started` or
 *     `call.abandoned`), the earliest of those decides: if its agent was paused or
 *     deleted at its `occurred_at`, the call is refused, all its events with it;
 * (d) otherwise (no start seen, never recorded, never refused) the events are
 *     accepted: when the call started cannot be known, and losing a call's end is
 *     worse than recording it.
 *
 * Only a start decides, never another event's time: an end arriving before its
 * start (occurred after the pause, for a call that started before) must not
 * refuse the call.
 */
import { agentStatusAt, answersCallStartingAt, type AgentStatusChange } from './agent-policy.rules.js';

/** Event types that mark when a call started. */
export const CALL_START_TYPES: ReadonlySet<string> = new Set(['call.started', 'call.abandoned']);

/** A refusal remembered for a conversation. */
export interface Refusal {
  agent_id: string;
  status: string;
}

/** A refusal decided now, to be remembered in the refusing transaction (under the conversation's lock). */
export interface NewRefusal {
  accountId: string;
  conversationId: string;
  agentId: string;
  status: string;
  startedAt: string | undefined;
}

/** As much of an agent as the rule needs (a KnownAgent has it). */
export interface AnsweringAgent {
  agent_id: string;
  history: readonly AgentStatusChange[];
}

/** One event of the conversation being judged, as far as the rule needs it. */
export interface JudgedEvent {
  /** `undefined` when the caller does not know it (then the event may be the start: see check-answering). */
  type: string | undefined;
  occurred_at: string;
  id?: string;
  /** The event's agent, when known. */
  agent: AnsweringAgent | undefined;
}

export type Verdict =
  | { answered: true }
  | {
      answered: false;
      agent_id: string;
      status: string;
      /** (c): a new refusal, to be remembered; (b): remembered before. */
      remembered: boolean;
      /** (c) only: when the call started (the deciding start's occurred_at). */
      started_at?: string;
    };

export function judgeCall(call: {
  recorded: boolean;
  refused: Refusal | undefined;
  events: readonly JudgedEvent[];
  /** Whether an event whose type is unknown counts as a possible start (see check-answering). */
  untypedMayStart?: boolean;
}): Verdict {
  if (call.recorded) return { answered: true };
  if (call.refused) return { answered: false, agent_id: call.refused.agent_id, status: call.refused.status, remembered: true };
  let start: { event: JudgedEvent; ms: number } | undefined;
  // Milliseconds, as the agents' status history: finer differences cannot change the status at the start.
  for (const event of call.events) {
    const isStart = event.type === undefined ? call.untypedMayStart === true : CALL_START_TYPES.has(event.type);
    if (!isStart || !event.agent) continue;
    const ms = Date.parse(event.occurred_at);
    if (start === undefined || ms < start.ms || (ms === start.ms && (event.id ?? '') < (start.event.id ?? ''))) start = { event, ms };
  }
  if (!start) return { answered: true };
  const { history, agent_id } = start.event.agent!;
  if (answersCallStartingAt(history, start.ms)) return { answered: true };
  return { answered: false, agent_id, status: agentStatusAt(history, start.ms), remembered: false, started_at: start.event.occurred_at };
}

/** Human-readable reason of a refusal, for logs and term reasons. */
export function refusalReason(conversationId: string, verdict: Extract<Verdict, { answered: false }>): string {
  return verdict.remembered
    ? `call ${conversationId} was refused before (agent ${verdict.agent_id} was ${verdict.status} when it started)`
    : `agent ${verdict.agent_id} was ${verdict.status} when call ${conversationId} started (${verdict.started_at})`;
}

/** A conversation (or an event) of an account: ids are unique only within an account. */
export function conversationKey(accountId: string, conversationId: string): string {
  return JSON.stringify([accountId, conversationId]);
}
