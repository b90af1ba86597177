import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { findCallEventProblem, type CallEvent, type ConversationChange } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { addToCounters, projectConversations } from '../conversation/conversation.store.js';
import { toChange } from '../conversation/conversation.views.js';
import { ConversationChangesPublisher } from '../publish-conversation-changes/conversation-changes.publisher.js';
import { lockConversations } from '../database/locks.js';
import { parkedForm } from '../conversation/privacy-policy.rules.js';
import {
  planCallRecording, plannedAppends, recordingScope, settleCallRecording, type IncomingEvent, type LoadedForRecording, type RecordOutcome,
} from './call-recording.decider.js';
import { publisherAccountMustOwnAgent } from './publisher-account.rules.js';
import { RecordCallEvents } from './record-call-events.command.js';
import { findAgentsOrLock, insertEvents, loadForRecording, parkEvents, rememberRefusals } from './record-call-events.store.js';

@CommandHandler(RecordCallEvents)
export class RecordCallEventsHandler implements ICommandHandler<RecordCallEvents, RecordOutcome[]> {
  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly changes: ConversationChangesPublisher,
  ) {}

  /** The changes the commit made go to the live stream's publisher, in commit order; the batch does not wait for them. */
  async execute(command: RecordCallEvents): Promise<RecordOutcome[]> {
    const { outcomes, changes } = await recordCallEventsWithChanges(this.ctx.dataSource, command.events, command.publisherAccounts);
    this.changes.enqueue(changes);
    return outcomes;
  }
}

/** Validate a batch of untrusted call events, then record the valid ones in one transaction (see recordInTransaction). */
export async function recordCallEvents(dataSource: DataSource, raw: readonly unknown[], publisherAccounts: ReadonlyArray<string | undefined> = []): Promise<RecordOutcome[]> {
  return (await recordCallEventsWithChanges(dataSource, raw, publisherAccounts)).outcomes;
}

/** recordCallEvents, also resolving the read-model changes its commit made (to be published after it). */
export async function recordCallEventsWithChanges(
  dataSource: DataSource,
  raw: readonly unknown[],
  publisherAccounts: ReadonlyArray<string | undefined> = [],
): Promise<{ outcomes: RecordOutcome[]; changes: ConversationChange[] }> {
  const outcomes: RecordOutcome[] = new Array(raw.length);
  const valid: IncomingEvent[] = [];
  raw.forEach((value, index) => {
    const problem = findCallEventProblem(value);
    if (problem) outcomes[index] = { result: 'invalid', reason: `${problem.field ?? ''}: ${problem.message}` };
    else valid.push({ index, event: value as CallEvent, publisherAccount: publisherAccounts[index] });
  });
  if (valid.length === 0) return { outcomes, changes: [] };
  const changes = await inTransaction(dataSource, (runner) => recordInTransaction(runner, valid, outcomes));
  return { outcomes, changes };
}

/**
 * Record valid call events inside the caller's transaction, setting
 * `outcomes[index]` for each: lock → load → decide (call-recording.decider.ts) →
 * write. A fixed number of statements whatever the number of conversations:
 * look up the agents, lock every touched conversation, read their streams, the
 * known event ids, refusals and tombstones, park, remember refusals, insert the new
 * events, upsert the read-model rows (and their search and topic rows), and last the
 * accounts' counters. Resolves the changes of the read model, for the
 * caller to publish once the transaction committed.
 */
export async function recordInTransaction(runner: QueryRunner, incoming: readonly IncomingEvent[], outcomes: RecordOutcome[]): Promise<ConversationChange[]> {
  if (incoming.length === 0) return [];
  const agents = await findAgentsOrLock(runner, [...new Set(incoming.map((i) => i.event.agent_id))]);
  // Another account's agent named on an account's subject: refused before anything is locked or read.
  const items = incoming.filter(({ index, event, publisherAccount }) => {
    const agent = agents.get(event.agent_id);
    const refusal = agent && publisherAccountMustOwnAgent(publisherAccount, agent.account_id);
    if (refusal) outcomes[index] = { result: 'invalid', reason: refusal };
    return !refusal;
  });
  if (items.length === 0) return [];
  const scope = recordingScope(agents, items);
  let loaded: LoadedForRecording = { agents, storedEvents: [], knownEventIds: [], refusals: [], erased: [] };
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
  // The subject's account is parked with the event: the replay checks it once the agent is known.
  const publisherOf = new Map(items.map((i) => [i.event, i.publisherAccount]));
  await parkEvents(runner, plan.parked.map((event) => ({ event: parkedForm(event), publisherAccount: publisherOf.get(event) })));
  await rememberRefusals(runner, plan.refusals);
  const appends = plannedAppends(plan);
  if (appends.length === 0) return [];

  const inserted = await insertEvents(runner, appends, at!);
  const settled = settleCallRecording(plan, inserted);
  for (const [index, outcome] of settled.outcomes) outcomes[index] = outcome;
  const projection = await projectConversations(runner, settled.conversations, at!);
  await addToCounters(runner, projection);
  const { written } = projection;
  const projected = new Map(settled.conversations.map((c) => [JSON.stringify([c.accountId, c.state.id]), c]));
  return written.map((row) => {
    const conversation = projected.get(JSON.stringify([row.account_id, row.id]))!;
    return toChange(conversation, row, agents.get(conversation.state.agent_id)?.name ?? null);
  });
}
