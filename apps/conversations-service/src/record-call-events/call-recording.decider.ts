/**
 * What recording a batch of valid call events does, as pure functions over what
 * the transaction loaded. The transaction (record-call-events.handler.ts) only
 * locks, loads, asks these functions and writes what they return:
 *
 *   recordingScope(agents, incoming)        → the conversations to lock and read, the event ids to look up
 *   planCallRecording(loaded, incoming)     → parked / duplicate / refused verdicts, refusals to remember,
 *                                              the events to insert with their stream versions
 *   settleCallRecording(plan, insertedIds)  → recorded / duplicate for each insert, the read-model rows
 *
 * A conversation is identified by (account of its agent, conversation id): ids
 * come from the platforms and are unique only within an account, event ids
 * likewise. Per incoming event:
 *
 * - parked: its agent is not known yet (kept until it is: replay-parked-events/);
 * - duplicate: the account already has its event id, or an earlier event of the
 *   batch has it;
 * - erased: its conversation was erased (a tombstone: an erasure request or retention) — nothing is stored, so
 *   a platform's retry, a redelivery or a replay never brings it back;
 * - refused (`not_answering`): its call is one its agent does not answer
 *   (answering.rules.ts) — nothing of the call is stored, and a refusal not
 *   remembered yet is to be remembered;
 * - otherwise it is appended to its conversation's stream, numbered on from the
 *   stream's last version, with its agent's switches applied
 *   (agent-policy.rules.ts) and its agent's platform kept beside it.
 *
 * Settling after the insert: an event the insert did not store was stored
 * meanwhile by a concurrent batch (under another conversation of the account)
 * and is a duplicate; each conversation that gained events is folded again
 * (conversation.evolve.ts) from its stored and new events, at the version of its
 * last new event, with the platform of its first stored event.
 */
import type { CallEvent } from '@voice/contracts';
import { applyAgentPolicy, type KnownAgent } from '../conversation/agent-policy.rules.js';
import { conversationKey, judgeCall, refusalReason, type NewRefusal, type Refusal } from '../conversation/answering.rules.js';
import { foldConversation } from '../conversation/conversation.evolve.js';
import type { ProjectedConversation } from '../conversation/conversation.views.js';

/** What recording did with one event; the consumer settles its message by it. */
export type RecordOutcome =
  /** Stored and projected (or already stored in the account: a duplicate changes nothing). Ack. */
  | { result: 'recorded' | 'duplicate' }
  /** Of a conversation that was erased (its tombstone): nothing stored, nothing to retry. Ack. */
  | { result: 'erased'; event_id: string }
  /** Not a valid call event; retrying cannot help. Term. */
  | { result: 'invalid'; reason: string }
  /** The agent is not known yet: kept in parked_call_events, recorded once the agent is known (replay-parked-events/). Ack. */
  | { result: 'parked'; event_id: string; agent_id: string }
  /** A call its agent does not answer (answering.rules.ts: started once the agent was paused or deleted, or refused before). Nothing stored. Term. */
  | { result: 'not_answering'; event_id: string; agent_id: string; reason: string };

/** A valid call event and its position in the batch (outcomes are reported by position). */
export interface IncomingEvent {
  index: number;
  event: CallEvent;
  /** The account its subject named (`call_events.<account_id>.<type>`); its agent must belong to it. */
  publisherAccount?: string;
}

/** A conversation of an account. */
export interface ConversationRef {
  accountId: string;
  conversationId: string;
}

/** An event id of an account. */
export interface EventRef {
  accountId: string;
  eventId: string;
}

/** An event already in a conversation's stream. */
export interface StoredCallEvent extends ConversationRef {
  version: number;
  event: CallEvent;
  /** The agent's platform when the event was stored (null for an event stored without one). */
  voicePlatform: string | null;
}

/** A refusal remembered for a conversation. */
export interface StoredRefusal extends ConversationRef {
  refusal: Refusal;
}

/** Everything the plan is made from, read under the conversations' locks. */
export interface LoadedForRecording {
  /** The batch's agents that are known; an absent agent is unknown. */
  agents: ReadonlyMap<string, KnownAgent>;
  /** Every stored event of the conversations in scope. */
  storedEvents: readonly StoredCallEvent[];
  /** Which of the scope's event ids the accounts already have (in these conversations or others). */
  knownEventIds: readonly EventRef[];
  refusals: readonly StoredRefusal[];
  /** The conversations in scope that were erased (their tombstones). */
  erased: readonly ConversationRef[];
}

export interface RecordingScope {
  /** The conversations of known agents' events, in order of first appearance. */
  conversations: ConversationRef[];
  /** Their events' ids, each once. */
  eventIds: EventRef[];
}

/** An event to insert into its conversation's stream. */
export interface PlannedAppend {
  index: number;
  version: number;
  /** As stored: the agent's switches applied. */
  event: CallEvent;
  voicePlatform: string;
}

/** A conversation that gains events, with what it had. */
export interface PlannedStream extends ConversationRef {
  /** Its stored events, in version order. */
  stored: readonly StoredCallEvent[];
  appends: PlannedAppend[];
}

export interface CallRecordingPlan {
  /** The outcomes known before writing: parked, duplicate, not_answering (by position in the batch). */
  outcomes: Map<number, RecordOutcome>;
  /** Events to park, their agent unknown. */
  parked: CallEvent[];
  refusals: NewRefusal[];
  /** Conversations that gain events, in batch order; inserting their appends in this order is the batch's insert. */
  streams: PlannedStream[];
}

export interface SettledRecording {
  /** recorded or duplicate, for every planned append (by position in the batch). */
  outcomes: Map<number, RecordOutcome>;
  /** The read-model rows of the conversations that gained events. */
  conversations: ProjectedConversation[];
}

interface ConversationBatch extends ConversationRef {
  items: Array<IncomingEvent & { agent: KnownAgent }>;
}

/** The events of known agents, by conversation, in order of first appearance; the rest are of unknown agents. */
function byConversation(agents: ReadonlyMap<string, KnownAgent>, incoming: readonly IncomingEvent[]): { batches: ConversationBatch[]; unknown: IncomingEvent[] } {
  const batches = new Map<string, ConversationBatch>();
  const unknown: IncomingEvent[] = [];
  for (const item of incoming) {
    const agent = agents.get(item.event.agent_id);
    if (!agent) {
      unknown.push(item);
      continue;
    }
    const key = conversationKey(agent.account_id, item.event.conversation_id);
    let batch = batches.get(key);
    if (!batch) batches.set(key, (batch = { accountId: agent.account_id, conversationId: item.event.conversation_id, items: [] }));
    batch.items.push({ ...item, agent });
  }
  return { batches: [...batches.values()], unknown };
}

/** What the transaction locks and reads before planning: the conversations known agents' events belong to. */
export function recordingScope(agents: ReadonlyMap<string, KnownAgent>, incoming: readonly IncomingEvent[]): RecordingScope {
  const { batches } = byConversation(agents, incoming);
  const eventIds = new Map<string, EventRef>();
  for (const batch of batches) {
    for (const { event } of batch.items) eventIds.set(conversationKey(batch.accountId, event.id), { accountId: batch.accountId, eventId: event.id });
  }
  return { conversations: batches.map(({ accountId, conversationId }) => ({ accountId, conversationId })), eventIds: [...eventIds.values()] };
}

export function planCallRecording(loaded: LoadedForRecording, incoming: readonly IncomingEvent[]): CallRecordingPlan {
  const { batches, unknown } = byConversation(loaded.agents, incoming);
  const plan: CallRecordingPlan = { outcomes: new Map(), parked: [], refusals: [], streams: [] };
  for (const { index, event } of unknown) {
    plan.parked.push(event);
    plan.outcomes.set(index, { result: 'parked', event_id: event.id, agent_id: event.agent_id });
  }

  const stored = new Map<string, StoredCallEvent[]>();
  for (const row of loaded.storedEvents) {
    const key = conversationKey(row.accountId, row.conversationId);
    const rows = stored.get(key);
    if (rows) rows.push(row);
    else stored.set(key, [row]);
  }
  for (const rows of stored.values()) rows.sort((a, b) => a.version - b.version);
  const knownIds = new Set(loaded.knownEventIds.map((k) => conversationKey(k.accountId, k.eventId)));
  const refusals = new Map(loaded.refusals.map((r) => [conversationKey(r.accountId, r.conversationId), r.refusal]));
  const erased = new Set(loaded.erased.map((e) => conversationKey(e.accountId, e.conversationId)));

  for (const batch of batches) {
    const key = conversationKey(batch.accountId, batch.conversationId);
    if (erased.has(key)) {
      for (const { index, event } of batch.items) plan.outcomes.set(index, { result: 'erased', event_id: event.id });
      continue;
    }
    const history = stored.get(key) ?? [];
    const fresh = batch.items.filter((item) => {
      const id = conversationKey(batch.accountId, item.event.id);
      if (knownIds.has(id)) {
        plan.outcomes.set(item.index, { result: 'duplicate' });
        return false;
      }
      knownIds.add(id);
      return true;
    });
    if (fresh.length === 0) continue;
    const verdict = judgeCall({
      recorded: history.length > 0,
      refused: refusals.get(key),
      events: fresh.map(({ event, agent }) => ({ type: event.type, occurred_at: event.occurred_at, id: event.id, agent })),
    });
    if (!verdict.answered) {
      const reason = refusalReason(batch.conversationId, verdict);
      for (const { index, event } of fresh) plan.outcomes.set(index, { result: 'not_answering', event_id: event.id, agent_id: event.agent_id, reason });
      if (!verdict.remembered) {
        plan.refusals.push({ accountId: batch.accountId, conversationId: batch.conversationId, agentId: verdict.agent_id, status: verdict.status, startedAt: verdict.started_at });
      }
      continue;
    }
    let version = history.at(-1)?.version ?? 0;
    plan.streams.push({
      accountId: batch.accountId,
      conversationId: batch.conversationId,
      stored: history,
      appends: fresh.map(({ index, event, agent }) => ({ index, version: ++version, event: applyAgentPolicy(event, agent), voicePlatform: agent.voice_platform })),
    });
  }
  return plan;
}

/** Every append of the plan, in insert order, with its conversation. */
export function plannedAppends(plan: CallRecordingPlan): Array<PlannedAppend & ConversationRef> {
  return plan.streams.flatMap(({ accountId, conversationId, appends }) => appends.map((append) => ({ ...append, accountId, conversationId })));
}

/** After the insert: `inserted` holds the event ids the insert stored (any other was stored meanwhile by a concurrent batch). */
export function settleCallRecording(plan: CallRecordingPlan, inserted: readonly EventRef[]): SettledRecording {
  const insertedIds = new Set(inserted.map((r) => conversationKey(r.accountId, r.eventId)));
  const settled: SettledRecording = { outcomes: new Map(), conversations: [] };
  for (const stream of plan.streams) {
    const added = stream.appends.filter((append) => {
      const isNew = insertedIds.has(conversationKey(stream.accountId, append.event.id));
      settled.outcomes.set(append.index, { result: isNew ? 'recorded' : 'duplicate' });
      return isNew;
    });
    if (added.length === 0) continue;
    settled.conversations.push({
      state: foldConversation([...stream.stored.map((s) => s.event), ...added.map((a) => a.event)])!,
      accountId: stream.accountId,
      streamVersion: added[added.length - 1].version,
      // The platform of the stream's first event (appends are in version order).
      voicePlatform: stream.stored.length > 0 ? stream.stored[0].voicePlatform : added[0].voicePlatform,
    });
  }
  return settled;
}
