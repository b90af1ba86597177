/**
 * Replay of the call events parked while their agent was unknown
 * (record-call-events.ts, parkEvents), once the agent is known.
 *
 * The transaction that makes an agent known does only that (agent-events.consumer.ts):
 * a backlog of any size must not make the agent's own event fail. Its parked
 * events are then recorded here, in transactions of at most `chunk` parked rows
 * each: taken out of the parking table (`FOR UPDATE SKIP LOCKED`, so replicas
 * replaying the same agent share the work) and recorded through the normal
 * recording path in the same transaction — each parked event is recorded exactly
 * once (and recording is idempotent by event id anyway).
 *
 * Triggered right after an agent event is committed, and by a periodic sweep over
 * every known agent with parked events, which catches a replay missed (a crash
 * after the agent's commit) or one that failed for a reason of the moment.
 *
 * A chunk that fails on something of the moment (database unreachable, lost race,
 * out of resources) is rolled back and left to the next sweep. A chunk that fails
 * otherwise is recorded again event by event (savepoints): what can be recorded is,
 * and an event that fails on its own — or is not a valid call event — is moved to
 * `failed_parked_call_events` with its failure (logged at error), not retried forever.
 */
import { findCallEventProblem, type CallEvent } from '@voice/contracts';
import { classifyFailure, inTransaction, isBrokenPipe, isDatabaseFailure } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource, QueryRunner } from 'typeorm';
import { findAgents } from '../agent-directory/known-agents.js';
import { lockConversations } from './locks.js';
import type { RecordOutcome } from './record-call-events.command.js';
import { recordInTransaction, type IncomingEvent } from './record-call-events.js';

interface ParkedRow {
  agent_id: string;
  event_id: string;
  event: unknown;
  seq: string;
  parked_at: string;
}

export interface ChunkReport {
  /** Parked rows taken out of the parking table by this chunk (fewer than asked: none left to take). */
  taken: number;
  counts: Partial<Record<RecordOutcome['result'] | 'failed', number>>;
  refused: Array<{ event_id: string; agent_id: string; reason: string }>;
  failed: Array<{ event_id: string; agent_id: string; failure: string }>;
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

/** Replay up to `chunk` of the agent's parked events (oldest first) in one transaction. */
export async function replayParkedChunk(dataSource: DataSource, agentId: string, chunk: number): Promise<ChunkReport> {
  return inTransaction(dataSource, async (runner) => {
    // Structured result: TypeORM answers a DELETE with [rows, count] otherwise.
    const { records: rows }: { records: ParkedRow[] } = await runner.query(
      `DELETE FROM conversations.parked_call_events p
        WHERE (p.agent_id, p.event_id) IN (
                SELECT agent_id, event_id FROM conversations.parked_call_events
                 WHERE agent_id = $1 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING p.agent_id, p.event_id, p.event, p.seq::text AS seq, p.parked_at::text AS parked_at`,
      [agentId, chunk],
      true,
    );
    const report: ChunkReport = { taken: rows.length, counts: {}, refused: [], failed: [] };
    if (rows.length === 0) return report;
    rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));

    const failed: Array<{ row: ParkedRow; failure: string }> = [];
    const items: Array<IncomingEvent & { row: ParkedRow }> = [];
    for (const row of rows) {
      // Parked events were validated before parking; one that is not valid (written by other means) cannot be recorded.
      const problem = findCallEventProblem(row.event);
      if (problem) failed.push({ row, failure: `invalid call event: ${problem.field ?? ''}: ${problem.message}` });
      else items.push({ index: items.length, event: row.event as CallEvent, row });
    }
    // Every conversation's lock first, in the common order: the event-by-event retry below must not
    // take them one by one out of order (advisory locks are re-entrant; these outlive the savepoints).
    const agent = (await findAgents(runner, [agentId])).get(agentId);
    if (agent) await lockConversations(runner, items.map(({ event }) => ({ accountId: agent.account_id, conversationId: event.conversation_id })));
    const outcomes: RecordOutcome[] = new Array(items.length);
    if (!(await attempt(runner, 'parked_chunk', () => recordInTransaction(runner, items, outcomes)))) {
      // Something in the chunk fails on its own: find it, event by event.
      for (const item of items) {
        const one: RecordOutcome[] = new Array(1);
        if (await attempt(runner, 'parked_event', () => recordInTransaction(runner, [{ index: 0, event: item.event }], one), (failure) => failed.push({ row: item.row, failure }))) {
          outcomes[item.index] = one[0];
        }
      }
    }
    if (failed.length > 0) {
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
    items.forEach((item) => {
      const outcome = outcomes[item.index];
      if (!outcome) return;
      report.counts[outcome.result] = (report.counts[outcome.result] ?? 0) + 1;
      if (outcome.result === 'not_answering') report.refused.push({ event_id: outcome.event_id, agent_id: outcome.agent_id, reason: outcome.reason });
    });
    if (failed.length > 0) report.counts.failed = failed.length;
    report.failed = failed.map(({ row, failure }) => ({ event_id: row.event_id, agent_id: row.agent_id, failure }));
    return report;
  });
}

/**
 * Run `work` under a savepoint. Resolves false (rolled back to the savepoint) when
 * it failed on something in the events; rethrows a failure of the moment, which
 * rolls the whole transaction back for a later attempt.
 */
async function attempt(runner: QueryRunner, savepoint: string, work: () => Promise<void>, onFailure?: (failure: string) => void): Promise<boolean> {
  await runner.query(`SAVEPOINT ${savepoint}`);
  try {
    await work();
    await runner.query(`RELEASE SAVEPOINT ${savepoint}`);
    return true;
  } catch (err) {
    if (!failsOnItsOwn(err)) throw err;
    await runner.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    onFailure?.(err instanceof Error ? err.message : String(err));
    return false;
  }
}

/**
 * Whether a failure can be caused by the events being recorded: their own data fault
 * (classifyFailure: a data exception, an integrity violation, a program limit, an
 * error raised by a trigger or function), or an error thrown by our own code while
 * recording them (folding, policy) rather than by the database. A bare EPIPE is the
 * database's socket closed under a write: recording writes to no other. Any other
 * database failure (an outage, a lost race, a schema problem) is one of the moment:
 * another attempt may succeed, and moving every event out of the way would be wrong.
 */
export function failsOnItsOwn(err: unknown): boolean {
  const failure = classifyFailure(err);
  if (failure === 'data_fault') return true;
  return failure === 'defect' && !isDatabaseFailure(err) && !isBrokenPipe(err);
}

export interface ReplayerOptions {
  dataSource: DataSource;
  logger: Logger;
  chunk: number;
  sweepMs: number;
}

/**
 * Replays parked events of known agents in the background: right after an agent
 * event (`wake`), and every `sweepMs` for any known agent that still has parked
 * events. One chunk at a time per process, agents taking turns chunk by chunk, so
 * a large backlog does not hold up a newly known agent's few events.
 */
export class ParkedEventsReplayer {
  private readonly pending = new Set<string>();
  private sweepDue = false;
  private stopped = true;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly options: ReplayerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.sweep(), this.options.sweepMs);
    this.timer.unref();
    this.sweep();
  }

  /** Replay these agents' parked events soon (they were just made known). */
  wake(agentIds: Iterable<string>): void {
    for (const id of agentIds) this.pending.add(id);
    this.kick();
  }

  /** Look for known agents with parked events now. */
  sweep(): void {
    this.sweepDue = true;
    this.kick();
  }

  /** Stop, after the chunk under way (if any) has committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private kick(): void {
    if (this.stopped || this.running) return;
    this.running = this.drain()
      .catch((err) => this.options.logger.error({ err }, 'parked call-event replay failed'))
      .finally(() => {
        this.running = undefined;
        if (this.pending.size > 0 || this.sweepDue) this.kick();
      });
  }

  private async drain(): Promise<void> {
    const { dataSource, logger, chunk } = this.options;
    const active = new Set<string>();
    while (!this.stopped) {
      for (const id of this.pending) active.add(id);
      this.pending.clear();
      if (active.size === 0) {
        if (!this.sweepDue) return;
        this.sweepDue = false;
        try {
          for (const id of await knownAgentsWithParkedEvents(dataSource)) active.add(id);
        } catch (err) {
          logger.warn({ err }, 'could not look for parked call events of known agents; next sweep retries');
          return;
        }
        if (active.size === 0) return;
      }
      for (const agentId of [...active]) {
        if (this.stopped) return;
        try {
          const report = await replayParkedChunk(dataSource, agentId, chunk);
          if (report.taken < chunk) active.delete(agentId);
          this.log(agentId, report);
        } catch (err) {
          active.delete(agentId);
          logger.warn({ err, agent_id: agentId }, 'replaying parked call events failed; rolled back, the next sweep retries');
        }
      }
    }
  }

  private log(agentId: string, report: ChunkReport): void {
    const { logger } = this.options;
    if (report.taken === 0) return;
    logger.info({ agent_id: agentId, ...report.counts }, `recorded ${report.taken} parked call events of an agent now known`);
    for (const r of report.refused) logger.warn(r, 'parked call event of a call the agent does not answer; dropped');
    for (const f of report.failed) logger.error(f, 'parked call event could not be recorded on its own; moved to failed_parked_call_events');
  }
}
