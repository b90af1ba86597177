import type { DataSource, QueryRunner } from 'typeorm';

/** A parked call event, as taken out of the parking table. */
export interface ParkedRow {
  agent_id: string;
  event_id: string;
  event: unknown;
  /** The account its subject named, checked against the agent's once the agent is known. */
  publisher_account_id: string | null;
  seq: string;
  parked_at: string;
}

/**
 * Known agents that have parked events. A skip scan over the parking table's key
 * (one index probe per distinct parked agent), so a large backlog of an agent
 * that never becomes known costs the sweep nothing.
 */
export async function knownAgentsWithParkedEvents(db: DataSource | QueryRunner): Promise<string[]> {
  const rows: Array<{ agent_id: string }> = await db.query(
    `WITH RECURSIVE parked(agent_id) AS (
       (SELECT agent_id FROM conversations.parked_call_events ORDER BY agent_id LIMIT 1)
       UNION ALL
       SELECT (SELECT p.agent_id FROM conversations.parked_call_events p WHERE p.agent_id > parked.agent_id ORDER BY p.agent_id LIMIT 1)
         FROM parked WHERE parked.agent_id IS NOT NULL
     )
     SELECT parked.agent_id FROM parked JOIN conversations.agents a ON a.agent_id = parked.agent_id`,
  );
  return rows.map((r) => r.agent_id);
}

/**
 * Take up to `chunk` of the agent's parked events (oldest first) out of the
 * parking table, skipping rows another transaction has taken (replicas replaying
 * the same agent share the work). They are gone once the transaction commits.
 */
export async function takeParkedEvents(runner: QueryRunner, agentId: string, chunk: number): Promise<ParkedRow[]> {
  // Structured result: TypeORM answers a DELETE with [rows, count] otherwise.
  const { records: rows }: { records: ParkedRow[] } = await runner.query(
    `DELETE FROM conversations.parked_call_events p
      WHERE (p.agent_id, p.event_id) IN (
              SELECT agent_id, event_id FROM conversations.parked_call_events
               WHERE agent_id = $1 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING p.agent_id, p.event_id, p.event, p.publisher_account_id, p.seq::text AS seq, p.parked_at::text AS parked_at`,
    [agentId, chunk],
    true,
  );
  return rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
}

/** Keep parked events that cannot be recorded, with their failure, out of the replay's way. */
export async function keepFailedParkedEvents(runner: QueryRunner, failed: ReadonlyArray<{ row: ParkedRow; failure: string }>): Promise<void> {
  if (failed.length === 0) return;
  await runner.query(
    `INSERT INTO conversations.failed_parked_call_events (agent_id, event_id, event, parked_at, failure)
     SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::text[])
     ON CONFLICT (agent_id, event_id) DO UPDATE SET event = EXCLUDED.event, failure = EXCLUDED.failure, failed_at = now()`,
    [
      failed.map((f) => f.row.agent_id), failed.map((f) => f.row.event_id), failed.map((f) => JSON.stringify(f.row.event)),
      failed.map((f) => f.row.parked_at), failed.map((f) => f.failure),
    ],
  );
}
