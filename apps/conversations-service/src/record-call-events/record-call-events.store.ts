/**
 * The SQL of recording call events. Each function is one statement over the
 * whole batch (set-based, whatever the number of conversations), so a batch
 * costs a fixed handful of statements.
 */
import type { CallEvent } from '@voice/contracts';
import type { QueryRunner } from 'typeorm';
import { findAgents } from '../agent-directory/known-agents.store.js';
import type { KnownAgent } from '../conversation/agent-policy.rules.js';
import type { NewRefusal } from '../conversation/answering.rules.js';
import { lockAgents } from '../database/locks.js';
import type { ConversationRef, EventRef, LoadedForRecording, PlannedAppend, StoredCallEvent, StoredRefusal } from './call-recording.decider.js';

/**
 * Agents of the batch as known now. For an unknown one, take its lock (shared)
 * and look again: the transaction that makes an agent known holds it
 * exclusively, so either it has committed (the agent is found now), or it
 * commits after this batch — and the replay that follows its commit
 * (replay-parked-events/) finds what this batch parks. No event is parked for
 * an agent already known, so none can be missed by the replay.
 */
export async function findAgentsOrLock(runner: QueryRunner, agentIds: string[]): Promise<Map<string, KnownAgent>> {
  const agents = await findAgents(runner, agentIds);
  const unknown = agentIds.filter((id) => !agents.has(id));
  if (unknown.length > 0) {
    await lockAgents(runner, unknown, 'shared');
    for (const [id, agent] of await findAgents(runner, unknown)) agents.set(id, agent);
  }
  return agents;
}

/**
 * The conversations' stored events, the event ids the accounts already have, the
 * conversations' remembered refusals, and the time of this write. To be called
 * under the conversations' locks (a refusal is written under them too), in
 * statements of their own: a READ COMMITTED statement reads the snapshot of its start.
 */
export async function loadForRecording(
  runner: QueryRunner,
  conversations: readonly ConversationRef[],
  eventIds: readonly EventRef[],
): Promise<Omit<LoadedForRecording, 'agents'> & { at: string }> {
  const rows: Array<{ account_id: string; stream_id: string; stream_version: number; data: CallEvent; voice_platform: string | null }> = await runner.query(
    `SELECT e.account_id, e.stream_id, e.stream_version, e.data, e.metadata->>'voice_platform' AS voice_platform
       FROM conversations.events e
       JOIN unnest($1::text[], $2::text[]) AS k(account_id, stream_id) ON e.account_id = k.account_id AND e.stream_id = k.stream_id
      ORDER BY e.stream_version`,
    [conversations.map((c) => c.accountId), conversations.map((c) => c.conversationId)],
  );
  const storedEvents: StoredCallEvent[] = rows.map((r) => ({
    accountId: r.account_id, conversationId: r.stream_id, version: r.stream_version, event: r.data, voicePlatform: r.voice_platform,
  }));
  // The time of this write is read after the locks, not now() (the transaction's start), so a writer that
  // waited for a lock does not stamp an older time than the one it waited for. Kept as text: microseconds intact.
  const [{ at, known }]: Array<{ at: string; known: Array<[string, string]> }> = await runner.query(
    `SELECT clock_timestamp()::text AS at,
            coalesce((SELECT json_agg(json_build_array(e.account_id, e.event_id))
                        FROM conversations.events e
                        JOIN unnest($1::text[], $2::text[]) AS k(account_id, event_id) ON e.account_id = k.account_id AND e.event_id = k.event_id),
                     '[]'::json) AS known`,
    [eventIds.map((e) => e.accountId), eventIds.map((e) => e.eventId)],
  );
  const refusals = await findRefusals(runner, conversations);
  const erased = await findTombstones(runner, conversations);
  return { storedEvents, knownEventIds: known.map(([accountId, eventId]) => ({ accountId, eventId })), refusals, erased, at };
}

/** Which of these conversations were erased (erasure writes its tombstones under the same locks). */
async function findTombstones(runner: QueryRunner, conversations: readonly ConversationRef[]): Promise<ConversationRef[]> {
  if (conversations.length === 0) return [];
  const rows: Array<{ account_id: string; conversation_id: string }> = await runner.query(
    `SELECT t.account_id, t.conversation_id
       FROM conversations.erased_conversations t
       JOIN unnest($1::text[], $2::text[]) AS k(account_id, conversation_id)
         ON t.account_id = k.account_id AND t.conversation_id = k.conversation_id`,
    [conversations.map((k) => k.accountId), conversations.map((k) => k.conversationId)],
  );
  return rows.map((r) => ({ accountId: r.account_id, conversationId: r.conversation_id }));
}

/** Refusals remembered for these conversations. */
async function findRefusals(runner: QueryRunner, conversations: readonly ConversationRef[]): Promise<StoredRefusal[]> {
  if (conversations.length === 0) return [];
  const rows: Array<{ account_id: string; conversation_id: string; agent_id: string; status: string }> = await runner.query(
    `SELECT r.account_id, r.conversation_id, r.agent_id, r.status
       FROM conversations.refused_conversations r
       JOIN unnest($1::text[], $2::text[]) AS k(account_id, conversation_id)
         ON r.account_id = k.account_id AND r.conversation_id = k.conversation_id`,
    [conversations.map((k) => k.accountId), conversations.map((k) => k.conversationId)],
  );
  return rows.map((r) => ({ accountId: r.account_id, conversationId: r.conversation_id, refusal: { agent_id: r.agent_id, status: r.status } }));
}

/**
 * Events whose agent is not known yet (its agent event may still be on the
 * way, or the id is wrong) wait in Postgres, not on the bus: held messages
 * count against the consumer's max_ack_pending and would stall every account.
 * Recorded (exactly once, by event id) once the agent is known: see replay-parked-events/.
 */
export async function parkEvents(runner: QueryRunner, parked: ReadonlyArray<{ event: CallEvent; publisherAccount?: string }>): Promise<void> {
  if (parked.length === 0) return;
  const events = parked.map((p) => p.event);
  await runner.query(
    `INSERT INTO conversations.parked_call_events (agent_id, event_id, event, publisher_account_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[])
     ON CONFLICT (agent_id, event_id) DO NOTHING`,
    [events.map((e) => e.agent_id), events.map((e) => e.id), events.map((e) => JSON.stringify(e)), parked.map((p) => p.publisherAccount ?? null)],
  );
}

/** Remember new refusals, in the transaction that refuses the events (under the conversations' locks), so a later event of the call is refused too. */
export async function rememberRefusals(runner: QueryRunner, refusals: readonly NewRefusal[]): Promise<void> {
  if (refusals.length === 0) return;
  await runner.query(
    `INSERT INTO conversations.refused_conversations (account_id, conversation_id, agent_id, status, call_started_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
     ON CONFLICT (account_id, conversation_id) DO NOTHING`,
    [
      refusals.map((r) => r.accountId), refusals.map((r) => r.conversationId), refusals.map((r) => r.agentId),
      refusals.map((r) => r.status), refusals.map((r) => r.startedAt ?? null),
    ],
  );
}

/**
 * Append the events to their streams, stamped with the time of this write. An
 * event id the account has already is skipped; resolves the ids that were stored.
 */
export async function insertEvents(runner: QueryRunner, appends: ReadonlyArray<PlannedAppend & ConversationRef>, at: string): Promise<EventRef[]> {
  if (appends.length === 0) return [];
  const inserted: Array<{ account_id: string; event_id: string }> = await runner.query(
    `INSERT INTO conversations.events (account_id, stream_id, stream_version, event_id, type, data, metadata, created_at)
     SELECT e.account_id, e.stream_id, e.stream_version, e.event_id, e.type, e.data, e.metadata, $8::timestamptz
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[])
            AS e(account_id, stream_id, stream_version, event_id, type, data, metadata)
     ON CONFLICT (account_id, event_id) DO NOTHING
     RETURNING account_id, event_id`,
    [
      appends.map((a) => a.accountId), appends.map((a) => a.conversationId), appends.map((a) => a.version),
      appends.map((a) => a.event.id), appends.map((a) => a.event.type), appends.map((a) => JSON.stringify(a.event)),
      appends.map((a) => JSON.stringify({ voice_platform: a.voicePlatform })), at,
    ],
  );
  return inserted.map((r) => ({ accountId: r.account_id, eventId: r.event_id }));
}
