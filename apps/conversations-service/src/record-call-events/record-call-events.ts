import type { CallEvent } from '@voice/contracts';
import { findCallEventProblem } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { applyAgentPolicy } from '../conversation/agent-policy.rules.js';
import { foldConversation } from '../conversation/conversation.evolve.js';
import { addToAccountTotals, projectConversation } from '../conversation/conversation.projection.js';
import { findAgents, type KnownAgent } from '../agent-directory/known-agents.js';
import type { RecordOutcome } from './record-call-events.command.js';

/**
 * Store a batch of call events and project the conversations they touch, in one
 * transaction. Per conversation: lock its stream, append the new events (a known
 * event id changes nothing), re-fold the whole stream and upsert the read model.
 */
export async function recordCallEvents(dataSource: DataSource, raw: readonly unknown[]): Promise<RecordOutcome[]> {
  const outcomes: RecordOutcome[] = new Array(raw.length);
  const valid: Array<{ index: number; event: CallEvent }> = [];
  raw.forEach((value, index) => {
    const problem = findCallEventProblem(value);
    if (problem) outcomes[index] = { result: 'invalid', reason: `${problem.field ?? ''}: ${problem.message}` };
    else valid.push({ index, event: value as CallEvent });
  });
  if (valid.length === 0) return outcomes;

  await inTransaction(dataSource, async (runner) => {
    const agents = await findAgents(runner, [...new Set(valid.map((v) => v.event.agent_id))]);
    const byConversation = new Map<string, Array<{ index: number; event: CallEvent; agent: KnownAgent }>>();
    for (const { index, event } of valid) {
      const agent = agents.get(event.agent_id);
      if (!agent) {
        outcomes[index] = { result: 'unknown_agent', agent_id: event.agent_id };
        continue;
      }
      const group = byConversation.get(event.conversation_id) ?? [];
      group.push({ index, event, agent });
      byConversation.set(event.conversation_id, group);
    }
    // A fixed lock order keeps two replicas' batches from deadlocking each other.
    const added = new Map<string, number>();
    for (const conversationId of [...byConversation.keys()].sort()) {
      const newIn = await recordConversation(runner, conversationId, byConversation.get(conversationId)!, outcomes);
      if (newIn) added.set(newIn, (added.get(newIn) ?? 0) + 1);
    }
    await addToAccountTotals(runner, added);
  });
  return outcomes;
}

async function recordConversation(
  runner: QueryRunner,
  conversationId: string,
  items: Array<{ index: number; event: CallEvent; agent: KnownAgent }>,
  outcomes: RecordOutcome[],
): Promise<string | undefined> {
  // Lock first, in its own statement: a READ COMMITTED statement reads the snapshot of its start.
  await runner.query(`SELECT pg_advisory_xact_lock(hashtext('conversation:' || $1))`, [conversationId]);
  const [stream, [existing], [{ at }]] = await Promise.all([
    runner.query(`SELECT event_id, stream_version, data FROM conversations.events WHERE stream_id = $1 ORDER BY stream_version`, [conversationId]) as Promise<Array<{ event_id: string; stream_version: number; data: CallEvent }>>,
    runner.query(`SELECT account_id FROM conversations.conversations WHERE id = $1`, [conversationId]) as Promise<Array<{ account_id: string }>>,
    // Read after the lock, not now() (the transaction's start): a writer that waited for the lock
    // must not stamp an older time than the one it waited for. Kept as text: microseconds intact.
    runner.query(`SELECT clock_timestamp()::text AS at`) as Promise<Array<{ at: string }>>,
  ]);
  // Object-level authorization: one account's agent cannot write into another account's conversation.
  const accountId: string = existing?.account_id ?? items[0].agent.account_id;
  const known = new Set(stream.map((r) => r.event_id));
  let streamVersion = stream.at(-1)?.stream_version ?? 0;

  const fresh: Array<{ index: number; stored: CallEvent }> = [];
  for (const { index, event, agent } of items) {
    if (agent.account_id !== accountId) {
      outcomes[index] = { result: 'rejected', reason: `conversation ${conversationId} belongs to another account` };
    } else if (known.has(event.id)) {
      outcomes[index] = { result: 'duplicate' };
    } else {
      known.add(event.id);
      fresh.push({ index, stored: applyAgentPolicy(event, agent) });
    }
  }
  if (fresh.length === 0) return undefined;

  const inserted: Array<{ event_id: string; stream_version: number }> = await runner.query(
    `INSERT INTO conversations.events (stream_id, stream_version, event_id, type, data, created_at)
     SELECT $1, $2::int + e.n, e.event_id, e.type, e.data, $6::timestamptz
       FROM unnest($3::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS e(event_id, type, data, n)
     ON CONFLICT (event_id) DO NOTHING
     RETURNING event_id, stream_version`,
    [conversationId, streamVersion, fresh.map((f) => f.stored.id), fresh.map((f) => f.stored.type), fresh.map((f) => JSON.stringify(f.stored)), at],
  );
  // An id missing here was already stored under another conversation: a duplicate all the same.
  const insertedIds = new Set(inserted.map((r) => r.event_id));
  for (const { index, stored } of fresh) outcomes[index] = { result: insertedIds.has(stored.id) ? 'recorded' : 'duplicate' };
  if (inserted.length === 0) return undefined;
  streamVersion = Math.max(streamVersion, ...inserted.map((r) => r.stream_version));

  const state = foldConversation([...stream.map((r) => r.data), ...fresh.filter((f) => insertedIds.has(f.stored.id)).map((f) => f.stored)])!;
  const isNew = await projectConversation(runner, { state, accountId, streamVersion, at });
  // The account whose total grew, if this conversation is new.
  return isNew ? accountId : undefined;
}
