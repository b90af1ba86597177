/**
 * Replay of the call events parked while their agent was unknown
 * (record-call-events/, parkEvents), once the agent is known.
 *
 * The transaction that makes an agent known does only that (agent-directory/):
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
import { findCallEventProblem, type CallEvent, type ConversationChange } from '@voice/contracts';
import { classifyFailure, inTransaction, isBrokenPipe, isDatabaseFailure } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { findAgents } from '../agent-directory/known-agents.store.js';
import { lockConversations } from '../database/locks.js';
import type { IncomingEvent, RecordOutcome } from '../record-call-events/call-recording.decider.js';
import { recordInTransaction } from '../record-call-events/record-call-events.handler.js';
import { keepFailedParkedEvents, takeParkedEvents, type ParkedRow } from './replay-parked-events.store.js';

export interface ChunkReport {
  /** Parked rows taken out of the parking table by this chunk (fewer than asked: none left to take). */
  taken: number;
  counts: Partial<Record<RecordOutcome['result'] | 'failed', number>>;
  refused: Array<{ event_id: string; agent_id: string; reason: string }>;
  failed: Array<{ event_id: string; agent_id: string; failure: string }>;
  /** What the chunk changed in the read model, to publish once it committed. */
  changes: ConversationChange[];
}

/** Replay up to `chunk` of the agent's parked events (oldest first) in one transaction. */
export async function replayParkedChunk(dataSource: DataSource, agentId: string, chunk: number): Promise<ChunkReport> {
  return inTransaction(dataSource, async (runner) => {
    const rows = await takeParkedEvents(runner, agentId, chunk);
    const report: ChunkReport = { taken: rows.length, counts: {}, refused: [], failed: [], changes: [] };
    if (rows.length === 0) return report;

    const failed: Array<{ row: ParkedRow; failure: string }> = [];
    const items: Array<IncomingEvent & { row: ParkedRow }> = [];
    for (const row of rows) {
      // Parked events were validated before parking; one that is not valid (written by other means) cannot be recorded.
      const problem = findCallEventProblem(row.event);
      if (problem) failed.push({ row, failure: `invalid call event: ${problem.field ?? ''}: ${problem.message}` });
      else items.push({ index: items.length, event: row.event as CallEvent, publisherAccount: row.publisher_account_id ?? undefined, row });
    }
    // Every conversation's lock first, in the common order: the event-by-event retry below must not
    // take them one by one out of order (advisory locks are re-entrant; these outlive the savepoints).
    const agent = (await findAgents(runner, [agentId])).get(agentId);
    if (agent) await lockConversations(runner, items.map(({ event }) => ({ accountId: agent.account_id, conversationId: event.conversation_id })));
    const outcomes: RecordOutcome[] = new Array(items.length);
    // Changes of an attempt rolled back to its savepoint are not kept.
    const record = (incoming: IncomingEvent[], into: RecordOutcome[]) => async () => {
      const changes = await recordInTransaction(runner, incoming, into);
      report.changes.push(...changes);
    };
    if (!(await attempt(runner, 'parked_chunk', record(items, outcomes)))) {
      // Something in the chunk fails on its own: find it, event by event.
      for (const item of items) {
        const one: RecordOutcome[] = new Array(1);
        if (await attempt(runner, 'parked_event', record([{ index: 0, event: item.event, publisherAccount: item.publisherAccount }], one), (failure) => failed.push({ row: item.row, failure }))) {
          outcomes[item.index] = one[0];
        }
      }
    }
    await keepFailedParkedEvents(runner, failed);
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

