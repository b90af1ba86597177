import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { findCallEventProblem, type CallEvent } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { addToAccountTotals, projectConversations } from '../conversation/conversation.store.js';
import { lockConversations } from '../database/locks.js';
import {
  planCallRecording, plannedAppends, recordingScope, settleCallRecording, type IncomingEvent, type LoadedForRecording, type RecordOutcome,
} from './call-recording.decider.js';
import { RecordCallEvents } from './record-call-events.command.js';
import { findAgentsOrLock, insertEvents, loadForRecording, parkEvents, rememberRefusals } from './record-call-events.store.js';

@CommandHandler(RecordCallEvents)
export class RecordCallEventsHandler implements ICommandHandler<RecordCallEvents, RecordOutcome[]> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  execute(command: RecordCallEvents): Promise<RecordOutcome[]> {
    return recordCallEvents(this.ctx.dataSource, command.events);
  }
}

/** Validate a batch of untrusted call events, then record the valid ones in one transaction (see recordInTransaction). */
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

/**
 * Record valid call events inside the caller's transaction, setting
 * `outcomes[index]` for each: lock → load → decide (call-recording.decider.ts) →
 * write. A fixed number of statements whatever the number of conversations:
 * look up the agents, lock every touched conversation, read their streams, the
 * known event ids and refusals, park, remember refusals, insert the new events,
 * upsert the read-model rows and the accounts' totals.
 */
export async function recordInTransaction(runner: QueryRunner, items: readonly IncomingEvent[], outcomes: RecordOutcome[]): Promise<void> {
  if (items.length === 0) return;
  const agents = await findAgentsOrLock(runner, [...new Set(items.map((i) => i.event.agent_id))]);
  const scope = recordingScope(agents, items);
  let loaded: LoadedForRecording = { agents, storedEvents: [], knownEventIds: [], refusals: [] };
  // The time of this write; read with the streams, so set whenever there is anything to append.
  let at: string | undefined;
  if (scope.conversations.length > 0) {
    // Lock first, in its own statement: a READ COMMITTED statement reads the snapshot of its start.
    await lockConversations(runner, scope.conversations);
    const { at: writeTime, ...found } = await loadForRecording(runner, scope.conversations, scope.eventIds);
    loaded = { agents, ...found };
    at = writeTime;
  }

  const plan = planCallRecording(loaded, items);
  for (const [index, outcome] of plan.outcomes) outcomes[index] = outcome;
  await parkEvents(runner, plan.parked);
  await rememberRefusals(runner, plan.refusals);
  const appends = plannedAppends(plan);
  if (appends.length === 0) return;

  const inserted = await insertEvents(runner, appends, at!);
  const settled = settleCallRecording(plan, inserted);
  for (const [index, outcome] of settled.outcomes) outcomes[index] = outcome;
  await addToAccountTotals(runner, await projectConversations(runner, settled.conversations, at!));
}
