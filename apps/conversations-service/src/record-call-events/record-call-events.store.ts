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
import type { ConversationRef, EventRef, LoadedForRecording, PlannedAppend } from './call-recording.decider.js';

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
 * conversations' remembered refusals and tombstones, and the time of this write, in one
 * statement (one round trip, one snapshot). To be called under the conversations' locks
 * (refusals and tombstones are written under them too), in a statement of its own: a
 * READ COMMITTED statement reads the snapshot of its start.
 */
export async function loadForRecording(
  runner: QueryRunner,
  conversations: readonly ConversationRef[],
  eventIds: readonly EventRef[],
): Promise<Omit<LoadedForRecording, 'agents'> & { at: string }> {
  // The time of this write is read after the locks, not now() (the transaction's start), so a writer that
  // waited for a lock does not stamp an older time than the one it waited for. Kept as text: microseconds intact.
  const [row]: Array<{
    at: string;
    events: Array<[string, string, number, CallEvent, string | null]>;
    known: Array<[string, string]>;
    refusals: Array<[string, string, string, string]>;
    erased: Array<[string, string]>;
  }> = await runner.query(
    `WITH k AS (SELECT * FROM unnest($1::text[], $2::text[]) AS k(account_id, conversation_id))
     SELECT clock_timestamp()::text AS at,
            coalesce((SELECT json_agg(json_build_array(e.account_id, e.stream_id, e.stream_version, e.data, e.metadata->>'voice_platform')
                                      ORDER BY e.stream_version)
                        FROM conversations.events e JOIN k ON e.account_id = k.account_id AND e.stream_id = k.conversation_id),
                     '[]'::json) AS events,
            coalesce((SELECT json_agg(json_build_array(e.account_id, e.event_id))
                        FROM conversations.events e
                        JOIN unnest($3::text[], $4::text[]) AS i(account_id, event_id) ON e.account_id = i.account_id AND e.event_id = i.event_id),
                     '[]'::json) AS known,
            coalesce((SELECT json_agg(json_build_array(r.account_id, r.conversation_id, r.agent_id, r.status))
                        FROM conversations.refused_conversations r JOIN k ON r.account_id = k.account_id AND r.conversation_id = k.conversation_id),
                     '[]'::json) AS refusals,
            coalesce((SELECT json_agg(json_build_array(t.account_id, t.conversation_id))
                        FROM conversations.erased_conversations t JOIN k ON t.account_id = k.account_id AND t.conversation_id = k.conversation_id),
                     '[]'::json) AS erased`,
    [conversations.map((c) => c.accountId), conversations.map((c) => c.conversationId), eventIds.map((e) => e.accountId), eventIds.map((e) => e.eventId)],
  );
  return {
    storedEvents: row.events.map(([accountId, conversationId, version, event, voicePlatform]) => ({ accountId, conversationId, version, event, voicePlatform })),
    knownEventIds: row.known.map(([accountId, eventId]) => ({ accountId, eventId })),
    refusals: row.refusals.map(([accountId, conversationId, agentId, status]) => ({ accountId, conversationId, refusal: { agent_id: agentId, status } })),
    erased: row.erased.map(([accountId, conversationId]) => ({ accountId, conversationId })),
    at: row.at,
  };
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
