import type { CallEvent } from '@voice/contracts';
import { findCallEventProblem } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { applyAgentPolicy } from '../conversation/agent-policy.rules.js';
import { foldConversation } from '../conversation/conversation.evolve.js';
import { addToAccountTotals, projectConversations, type ProjectedConversation } from '../conversation/conversation.projection.js';
import { findAgents, type KnownAgent } from '../agent-directory/known-agents.js';
import { conversationKey, findRefusals, judgeCall, refusalReason, rememberRefusals, type NewRefusal } from './answering-rule.js';
import type { RecordOutcome } from './record-call-events.command.js';
import { lockAgents, lockConversations } from './locks.js';

/** A valid call event and its position in the batch (outcomes are reported by position). */
export interface IncomingEvent {
  index: number;
  event: CallEvent;
}

/**
 * Store a batch of call events and project the conversations they touch, in one
 * transaction. A conversation is identified by (account of its agent,
 * conversation id): ids come from the platforms and are unique only within an
 * account, event ids likewise.
 */
export async function recordCallEvents(dataSource: DataSource, raw: readonly unknown[]): Promise<RecordOutcome[]> {
  const outcomes: RecordOutcome[] = new Array(raw.length);
  const valid: IncomingEvent[] = [];
  raw.forEach((value, index) => {
    const problem = findCallEventProblem(value);
    if (problem) outcomes[index] = { result: 'invalid', reason: `${problem.field ?? ''}: ${problem.message}` };
    else valid.push({ index, event: value as CallEvent });
  });
  if (valid.length === 0) return outcomes;
  await inTransaction(dataSource, (runner) => recordInTransaction(runner, valid, outcomes));
  return outcomes;
}

interface StreamBatch {
  accountId: string;
  conversationId: string;
  items: Array<IncomingEvent & { agent: KnownAgent }>;
}

interface StoredRow {
  account_id: string;
  stream_id: string;
  stream_version: number;
  data: CallEvent;
  voice_platform: string | null;
}

/**
 * Record valid call events inside the caller's transaction, setting
 * `outcomes[index]` for each. The whole batch costs a fixed number of
 * statements, whatever the number of conversations: lock every touched stream,
 * read them, look up known event ids, insert the new events, upsert the rows.
 *
 * - An event of an agent not known yet is parked (see parkEvents).
 * - An event id the account already has is a duplicate and changes nothing.
 * - A call its agent does not answer (answering-rule.ts: a call whose start occurred
 *   once its agent was paused or deleted, or one refused before) is refused whole:
 *   nothing of it is stored, and a new refusal is remembered in this transaction.
 * - The agent's switches are applied before storing (agent-policy.rules.ts), and its
 *   platform is kept in the event's metadata: the conversation's platform is the
 *   one of its first stored event.
 */
export async function recordInTransaction(
  runner: QueryRunner,
  items: readonly IncomingEvent[],
  outcomes: RecordOutcome[],
): Promise<void> {
  if (items.length === 0) return;
  const agents = await findAgentsOrLock(runner, [...new Set(items.map((i) => i.event.agent_id))]);
  const unknown = items.filter((i) => !agents.has(i.event.agent_id));
  if (unknown.length > 0) await parkEvents(runner, unknown, outcomes);

  const streams = new Map<string, StreamBatch>();
  for (const item of items) {
    const agent = agents.get(item.event.agent_id);
    if (!agent) continue;
    const key = streamKey(agent.account_id, item.event.conversation_id);
    let stream = streams.get(key);
    if (!stream) streams.set(key, (stream = { accountId: agent.account_id, conversationId: item.event.conversation_id, items: [] }));
    stream.items.push({ ...item, agent });
  }
  if (streams.size === 0) return;
  const batches = [...streams.values()];

  // Lock first, in its own statement: a READ COMMITTED statement reads the snapshot of its start.
  await lockConversations(runner, batches);
  const accountIds = batches.map((s) => s.accountId);
  const conversationIds = batches.map((s) => s.conversationId);
  const storedRows: StoredRow[] = await runner.query(
    `SELECT e.account_id, e.stream_id, e.stream_version, e.data, e.metadata->>'voice_platform' AS voice_platform
       FROM conversations.events e
       JOIN unnest($1::text[], $2::text[]) AS k(account_id, stream_id) ON e.account_id = k.account_id AND e.stream_id = k.stream_id
      ORDER BY e.stream_version`,
    [accountIds, conversationIds],
  );
  const stored = new Map<string, StoredRow[]>();
  for (const row of storedRows) {
    const key = streamKey(row.account_id, row.stream_id);
    const rows = stored.get(key);
    if (rows) rows.push(row);
    else stored.set(key, [row]);
  }
  // Event ids the accounts already have (in these conversations or others), and the time of this write:
  // read after the locks, not now() (the transaction's start), so a writer that waited for a lock does
  // not stamp an older time than the one it waited for. Kept as text: microseconds intact.
  const candidates = [...new Map(batches.flatMap((s) => s.items.map((i) => [streamKey(s.accountId, i.event.id), [s.accountId, i.event.id]] as const))).values()];
  const [{ at, known }]: Array<{ at: string; known: Array<[string, string]> }> = await runner.query(
    `SELECT clock_timestamp()::text AS at,
            coalesce((SELECT json_agg(json_build_array(e.account_id, e.event_id))
                        FROM conversations.events e
                        JOIN unnest($1::text[], $2::text[]) AS k(account_id, event_id) ON e.account_id = k.account_id AND e.event_id = k.event_id),
                     '[]'::json) AS known`,
    [candidates.map((c) => c[0]), candidates.map((c) => c[1])],
  );
  const knownIds = new Set(known.map(([accountId, eventId]) => streamKey(accountId, eventId)));
  // Read under the conversations' locks: a refusal is written under them too.
  const refusals = await findRefusals(runner, batches);
  const newRefusals: NewRefusal[] = [];

  const appends: Array<{ stream: StreamBatch; index: number; event: CallEvent; version: number; voicePlatform: string }> = [];
  for (const stream of batches) {
    const key = streamKey(stream.accountId, stream.conversationId);
    const history = stored.get(key) ?? [];
    const fresh = stream.items.filter((item) => {
      const id = streamKey(stream.accountId, item.event.id);
      if (knownIds.has(id)) {
        outcomes[item.index] = { result: 'duplicate' };
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
      const reason = refusalReason(stream.conversationId, verdict);
      for (const { index, event } of fresh) outcomes[index] = { result: 'not_answering', event_id: event.id, agent_id: event.agent_id, reason };
      if (!verdict.remembered) {
        newRefusals.push({ accountId: stream.accountId, conversationId: stream.conversationId, agentId: verdict.agent_id, status: verdict.status, startedAt: verdict.started_at });
      }
      continue;
    }
    let version = history.at(-1)?.stream_version ?? 0;
    for (const { index, event, agent } of fresh) {
      appends.push({ stream, index, event: applyAgentPolicy(event, agent), version: ++version, voicePlatform: agent.voice_platform });
    }
  }
  await rememberRefusals(runner, newRefusals);
  if (appends.length === 0) return;

  const inserted: Array<{ account_id: string; event_id: string }> = await runner.query(
    `INSERT INTO conversations.events (account_id, stream_id, stream_version, event_id, type, data, metadata, created_at)
     SELECT e.account_id, e.stream_id, e.stream_version, e.event_id, e.type, e.data, e.metadata, $8::timestamptz
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[])
            AS e(account_id, stream_id, stream_version, event_id, type, data, metadata)
     ON CONFLICT (account_id, event_id) DO NOTHING
     RETURNING account_id, event_id`,
    [
      appends.map((a) => a.stream.accountId), appends.map((a) => a.stream.conversationId), appends.map((a) => a.version),
      appends.map((a) => a.event.id), appends.map((a) => a.event.type), appends.map((a) => JSON.stringify(a.event)),
      appends.map((a) => JSON.stringify({ voice_platform: a.voicePlatform })), at,
    ],
  );
  // An id missing here was stored meanwhile by a concurrent batch (under another conversation of the account).
  const insertedIds = new Set(inserted.map((r) => streamKey(r.account_id, r.event_id)));
  const appended = new Map<StreamBatch, typeof appends>();
  for (const append of appends) {
    const isNew = insertedIds.has(streamKey(append.stream.accountId, append.event.id));
    outcomes[append.index] = { result: isNew ? 'recorded' : 'duplicate' };
    if (!isNew) continue;
    const added = appended.get(append.stream);
    if (added) added.push(append);
    else appended.set(append.stream, [append]);
  }

  const projected: ProjectedConversation[] = [];
  for (const [stream, added] of appended) {
    const history = stored.get(streamKey(stream.accountId, stream.conversationId)) ?? [];
    projected.push({
      state: foldConversation([...history.map((r) => r.data), ...added.map((a) => a.event)])!,
      accountId: stream.accountId,
      streamVersion: added[added.length - 1].version,
      // The platform of the stream's first event (appends are in version order).
      voicePlatform: history.length > 0 ? history[0].voice_platform : added[0].voicePlatform,
    });
  }
  await addToAccountTotals(runner, await projectConversations(runner, projected, at));
}

/**
 * Agents of the batch as known now. For an unknown one, take its lock (shared)
 * and look again: the transaction that makes an agent known holds it
 * exclusively, so either it has committed (the agent is found now), or it
 * commits after this batch — and the replay that follows its commit
 * (parked-events-replay.ts) finds what this batch parks. No event is parked
 * for an agent already known, so none can be missed by the replay.
 */
async function findAgentsOrLock(runner: QueryRunner, agentIds: string[]): Promise<Map<string, KnownAgent>> {
  const agents = await findAgents(runner, agentIds);
  const unknown = agentIds.filter((id) => !agents.has(id));
  if (unknown.length > 0) {
    await lockAgents(runner, unknown, 'shared');
    for (const [id, agent] of await findAgents(runner, unknown)) agents.set(id, agent);
  }
  return agents;
}

/**
 * Events whose agent is not known yet (its agent event may still be on the
 * way, or the id is wrong) wait in Postgres, not on the bus: held messages
 * count against the consumer's max_ack_pending and would stall every account.
 * Recorded (exactly once, by event id) once the agent is known: see
 * parked-events-replay.ts.
 */
async function parkEvents(runner: QueryRunner, items: readonly IncomingEvent[], outcomes: RecordOutcome[]): Promise<void> {
  await runner.query(
    `INSERT INTO conversations.parked_call_events (agent_id, event_id, event)
     SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])
     ON CONFLICT (agent_id, event_id) DO NOTHING`,
    [items.map((i) => i.event.agent_id), items.map((i) => i.event.id), items.map((i) => JSON.stringify(i.event))],
  );
  for (const { index, event } of items) outcomes[index] = { result: 'parked', event_id: event.id, agent_id: event.agent_id };
}

/** A conversation (or event) of an account; the same key as the answering rule's. */
function streamKey(accountId: string, id: string): string {
  return conversationKey(accountId, id);
}
