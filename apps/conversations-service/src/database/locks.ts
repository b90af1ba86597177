import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';

/**
 * Transaction-scoped advisory locks on conversations and agents. Keys are 64-bit
 * hashes computed here, so a batch takes all its locks in one statement, in one
 * order every replica agrees on (ascending key): no two batches can deadlock.
 * Every transaction takes agent locks before conversation locks.
 */
export function advisoryKey(kind: 'conversation' | 'agent', ...parts: string[]): bigint {
  // Parts are length-prefixed: ("a:b", "c") and ("a", "b:c") differ.
  const text = `${kind}\u0000${parts.map((p) => `${p.length}:${p}`).join('\u0000')}`;
  return createHash('sha256').update(text).digest().readBigInt64BE(0);
}

async function lockAll(runner: QueryRunner, keys: bigint[], shared: boolean): Promise<void> {
  if (keys.length === 0) return;
  const sorted = [...new Set(keys)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const fn = shared ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  // ORDER BY the position: the locks are taken (the volatile target list evaluated) in the array's order.
  await runner.query(
    `SELECT ${fn}(k.key) FROM unnest($1::bigint[]) WITH ORDINALITY AS k(key, n) ORDER BY k.n`,
    [sorted.map(String)],
  );
}

/** Exclusive: one writer per conversation stream at a time. */
export function lockConversations(runner: QueryRunner, keys: Array<{ accountId: string; conversationId: string }>): Promise<void> {
  return lockAll(runner, keys.map((k) => advisoryKey('conversation', k.accountId, k.conversationId)), false);
}

/**
 * Agents: exclusive for the transaction that records an agent event (and replays
 * what was parked for the agent), shared for call-event batches that find the
 * agent unknown and park its events — so a parked event is never missed by the replay.
 */
export function lockAgents(runner: QueryRunner, agentIds: string[], mode: 'shared' | 'exclusive'): Promise<void> {
  return lockAll(runner, agentIds.map((id) => advisoryKey('agent', id)), mode === 'shared');
}
