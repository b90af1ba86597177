/**
 * Erasure's SQL: every table of the schema that holds a conversation, in one transaction per batch, under the
 * conversations' locks (the recording transaction takes the same ones, so an event arriving meanwhile either
 * committed before — and is erased with the rest — or reads the tombstone after and is dropped).
 *
 * Reached: the event store, the read model, its side tables (search, topics, counts, the account's total), the
 * changes outbox, parked and failed parked events, access documents not yet downloaded. Left: refused_conversations
 * (account, conversation id, agent, status, times — nothing said on the call), which keeps refusing the call like
 * the tombstone does. The in-memory stats columns of every replica see the account's total fall below the rows they
 * hold at their next answer and reload (conversation-stats/stats-memory.ts).
 */
import type { ErasureReason } from '@voice/contracts';
import type { QueryRunner } from 'typeorm';
import { countChanges, startHourSql, type CountedColumns } from '../conversation/conversation-counts.js';
import { filterPredicates } from '../conversation-filters/conversation-filters.js';
import { applyCountChanges } from '../conversation/conversation.store.js';
import { lockConversations } from '../database/locks.js';

/** Conversations erased per transaction: bounded, so a request never holds many locks for long (ingest goes on beside it). */
export const ERASURE_BATCH = 500;

/**
 * Erase these conversations of the account and leave their tombstones and the notice other services erase their
 * copies by, in the caller's transaction. Resolves how many read-model rows were removed.
 */
export async function eraseConversations(runner: QueryRunner, accountId: string, conversationIds: readonly string[], reason: ErasureReason): Promise<number> {
  const ids = [...new Set(conversationIds)];
  if (ids.length === 0) return 0;
  await lockConversations(runner, ids.map((conversationId) => ({ accountId, conversationId })));
  await runner.query(
    `INSERT INTO conversations.erased_conversations (account_id, conversation_id, reason)
     SELECT $1, id, $3 FROM unnest($2::text[]) AS id
     ON CONFLICT (account_id, conversation_id) DO NOTHING`,
    [accountId, ids, reason],
  );
  // Structured result: TypeORM answers a DELETE with [rows, count] otherwise.
  const { records: removed }: { records: CountedColumns[] } = await runner.query(
    `DELETE FROM conversations.conversations
      WHERE account_id = $1 AND id = ANY($2::text[])
      RETURNING account_id, agent_id, status, sentiment, outcome, has_recording, has_transcript, topics_lower, duration,
                ${startHourSql('conversations')} AS start_hour`,
    [accountId, ids],
    true,
  );
  await runner.query('DELETE FROM conversations.conversation_search WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, ids]);
  await runner.query('DELETE FROM conversations.conversation_topics WHERE account_id = $1 AND conversation_id = ANY($2::text[])', [accountId, ids]);
  await runner.query('DELETE FROM conversations.events WHERE account_id = $1 AND stream_id = ANY($2::text[])', [accountId, ids]);
  await runner.query('DELETE FROM conversations.conversation_changes WHERE account_id = $1 AND conversation_id = ANY($2::text[])', [accountId, ids]);
  await runner.query('DELETE FROM conversations.access_exports WHERE account_id = $1 AND conversation_id = ANY($2::text[])', [accountId, ids]);
  // A parked event's agent may not be known yet: it is the account's when the subject named it or its agent is known to be.
  for (const table of ['parked_call_events', 'failed_parked_call_events']) {
    await runner.query(
      `DELETE FROM conversations.${table} p
        WHERE p.event->>'conversation_id' = ANY($2::text[])
          AND (${table === 'parked_call_events' ? 'p.publisher_account_id = $1 OR ' : ''}
               p.agent_id IN (SELECT a.agent_id FROM conversations.agents a WHERE a.account_id = $1))`,
      [accountId, ids],
    );
  }
  await runner.query(
    'INSERT INTO conversations.erasure_notices (account_id, conversation_ids, reason) VALUES ($1, $2::text[], $3)',
    [accountId, ids, reason],
  );
  await applyCountChanges(runner, countChanges(removed.map((row) => ({ before: row, after: undefined }))));
  // Last, like the recording transaction, so the account's row is locked briefly and in the same order.
  if (removed.length > 0) {
    await runner.query('UPDATE conversations.account_totals SET conversations = conversations - $2 WHERE account_id = $1', [accountId, removed.length]);
  }
  return removed.length;
}

/**
 * The predicate and parameters selecting the caller's conversations of the account after `after` (id order): the
 * list's own `caller` filter, so the read model's (account_id, caller_number) index serves it.
 */
export function callerConversations(accountId: string, callerNumber: string, after = ''): { where: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const [caller] = filterPredicates({ caller: callerNumber }, params);
  params.push(after);
  return { where: `c.account_id = $1 AND ${caller.sql('c')} AND c.id > $${params.length}`, params };
}

/** The ids of up to `limit` conversations of the caller in the account. */
export async function conversationsOfCaller(runner: QueryRunner, accountId: string, callerNumber: string, limit: number): Promise<string[]> {
  const { where, params } = callerConversations(accountId, callerNumber);
  const rows: Array<{ id: string }> = await runner.query(`SELECT c.id FROM conversations.conversations c WHERE ${where} LIMIT ${Number(limit)}`, params);
  return rows.map((r) => r.id);
}

/** How many conversations of the caller the account has now (after `after`, in id order). */
export async function countConversationsOfCaller(runner: QueryRunner, accountId: string, callerNumber: string, after = ''): Promise<number> {
  const { where, params } = callerConversations(accountId, callerNumber, after);
  const [row]: Array<{ n: string }> = await runner.query(`SELECT count(*)::text AS n FROM conversations.conversations c WHERE ${where}`, params);
  return Number(row.n);
}

/**
 * The caller's calls still parked (their agent not known when they arrived) and not recorded: their conversations
 * are erased too (tombstoned, their parked events dropped), so they are not recorded once the agent is known.
 */
export async function parkedConversationsOfCaller(runner: QueryRunner, accountId: string, callerNumber: string): Promise<string[]> {
  const rows: Array<{ conversation_id: string }> = await runner.query(
    `SELECT DISTINCT p.event->>'conversation_id' AS conversation_id
       FROM conversations.parked_call_events p
      WHERE p.event->'data'->>'caller_number' = $2
        AND (p.publisher_account_id = $1 OR p.agent_id IN (SELECT a.agent_id FROM conversations.agents a WHERE a.account_id = $1))`,
    [accountId, callerNumber],
  );
  return rows.map((r) => r.conversation_id);
}
