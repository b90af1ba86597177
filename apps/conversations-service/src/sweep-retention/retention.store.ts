/**
 * The retention sweep's SQL: the agents with a limit, the conversations past it (the read model's
 * (account_id, agent_id, start_time) index), and removing a recording from every copy of the conversation.
 */
import type { QueryRunner } from 'typeorm';
import { countChanges, startHourSql, type CountedColumns } from '../conversation/conversation-counts.js';
import { applyCountChanges } from '../conversation/conversation.store.js';
import { filterPredicates } from '../conversation-filters/conversation-filters.js';
import { lockConversations } from '../database/locks.js';

export interface AgentRetention {
  agent_id: string;
  account_id: string;
  conversations_days: number | null;
  recordings_days: number | null;
}

export async function agentsWithRetention(runner: QueryRunner): Promise<AgentRetention[]> {
  return runner.query(
    `SELECT agent_id, account_id, retention_conversations_days AS conversations_days, retention_recordings_days AS recordings_days
       FROM conversations.agents
      WHERE retention_conversations_days IS NOT NULL OR retention_recordings_days IS NOT NULL
      ORDER BY agent_id`,
  );
}

/**
 * Whether this transaction is the one sweeping the agent now: replicas sweeping at once share the agents instead
 * of waiting on each other's conversation locks.
 */
export async function claimAgentSweep(runner: QueryRunner, agentId: string): Promise<boolean> {
  const [{ claimed }] = await runner.query(`SELECT pg_try_advisory_xact_lock(hashtext('retention-sweep:' || $1)) AS claimed`, [agentId]);
  return claimed;
}

/** Up to `limit` of the agent's conversations that started more than `days` days ago; `withRecording`: only those with a recording. */
export async function conversationsOlderThan(runner: QueryRunner, agent: AgentRetention, days: number, limit: number, withRecording = false): Promise<string[]> {
  const [{ cutoff }]: Array<{ cutoff: string }> = await runner.query(
    `SELECT to_char((now() - $1 * interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cutoff`, [days],
  );
  // The list's own filters (agent, started on or before, with a recording): the (account_id, agent_id, start_time) index serves them.
  const params: unknown[] = [agent.account_id];
  const predicates = filterPredicates({ agent_id: agent.agent_id, end_date: cutoff, ...(withRecording ? { has_recording: true } : {}) }, params);
  const rows: Array<{ id: string }> = await runner.query(
    `SELECT c.id FROM conversations.conversations c WHERE c.account_id = $1 AND ${predicates.map((p) => p.sql('c')).join(' AND ')} LIMIT ${Number(limit)}`,
    params,
  );
  return rows.map((r) => r.id);
}

/**
 * The recording URL removed from the conversations' stored events (so no rebuild brings it back) and from their
 * read-model rows (has_recording false, the detail without it, the counts moved), under the conversations' locks.
 * The stream version stays: the conversation's history is unchanged but for the URL. Resolves how many rows changed.
 */
export async function removeRecordings(runner: QueryRunner, accountId: string, conversationIds: readonly string[]): Promise<number> {
  if (conversationIds.length === 0) return 0;
  await lockConversations(runner, conversationIds.map((conversationId) => ({ accountId, conversationId })));
  await runner.query(
    `UPDATE conversations.events SET data = jsonb_set(data, '{data}', (data->'data') - 'recording_url')
      WHERE account_id = $1 AND stream_id = ANY($2::text[]) AND data->'data' ? 'recording_url'`,
    [accountId, conversationIds],
  );
  const [rows]: [CountedColumns[], number] = await runner.query(
    `UPDATE conversations.conversations SET has_recording = false, detail = detail || '{"recording_url": null}'::jsonb
      WHERE account_id = $1 AND id = ANY($2::text[]) AND has_recording
      RETURNING account_id, agent_id, status, sentiment, outcome, has_recording, has_transcript, topics_lower, duration,
                ${startHourSql('conversations')} AS start_hour`,
    [accountId, conversationIds],
  );
  await applyCountChanges(runner, countChanges(rows.map((after) => ({ before: { ...after, has_recording: true }, after }))));
  return rows.length;
}
