import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CALL_EVENTS_STREAM, CALL_EVENTS_SUBJECT_ROOT, callEventSubjectAccount } from '@voice/contracts';
import type { StreamMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { StreamConsumer } from '../streams/stream-consumer.js';
import { subjectMustNameAccount } from './publisher-account.rules.js';
import { RecordCallEvents, type RecordOutcome } from './record-call-events.command.js';

export const CALL_EVENTS_DURABLE = 'conversations-service';
/**
 * Batches recorded at once by one process. Above 1, each conversation's events go to one of them
 * (callEventPartition), so two never wait on each other's conversation locks; between them it is as between
 * replicas: conversations are locked (in one sorted order), the event id is unique per account, the fold does not
 * depend on arrival order, and the shared counters are updated last, in one sorted order. One for now: on the
 * shared two-core machine the ingest is bound by CPU (PostgreSQL's and this process's), not by round trips, and
 * 3 at once measured no faster (bench/stack.bench.mjs, BENCH_ONLY=ingest).
 */
export const CALL_EVENTS_CONCURRENCY = 1;

/** A call event's conversation id (what its batch locks), or '' for a message that is not one. */
export function callEventPartition(message: StreamMessage): string {
  const data = message.data as { conversation_id?: unknown } | undefined;
  return typeof data?.conversation_id === 'string' ? data.conversation_id : '';
}

/**
 * Consumes CALL_EVENTS through a durable consumer shared by every replica: one
 * Postgres transaction per batch (RecordCallEvents), acks only after the commit.
 * Invalid events and calls of an agent that no longer answers are terminated
 * (never retried forever); events of an agent not known yet are parked in
 * Postgres and acked, so they never hold the consumer's ack window. If the
 * transaction fails the batch is redelivered.
 */
@Injectable()
export class CallEventsConsumer extends StreamConsumer<RecordOutcome> {
  constructor(
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    private readonly commandBus: CommandBus,
  ) {
    super(ctx, { stream: CALL_EVENTS_STREAM, subjectRoot: CALL_EVENTS_SUBJECT_ROOT, durable: CALL_EVENTS_DURABLE, concurrency: CALL_EVENTS_CONCURRENCY, partitionKey: callEventPartition });
  }

  protected override screen(message: StreamMessage): RecordOutcome | undefined {
    const refusal = subjectMustNameAccount(this.publisherAccount(message), this.ctx.requireAccountSubject ?? false);
    return refusal ? { result: 'invalid', reason: refusal } : undefined;
  }

  protected override process(messages: readonly StreamMessage[]): Promise<RecordOutcome[]> {
    return this.commandBus.execute(new RecordCallEvents(messages.map((m) => m.data), messages.map((m) => this.publisherAccount(m))));
  }

  private publisherAccount(message: StreamMessage): string | undefined {
    return callEventSubjectAccount(this.ctx.namespace, message.subject);
  }

  protected override settle(message: StreamMessage, outcome: RecordOutcome): void {
    switch (outcome.result) {
      case 'recorded':
      case 'duplicate':
        message.ack();
        break;
      case 'erased':
        this.ctx.logger.info({ event_id: outcome.event_id }, 'call event of an erased conversation; dropped');
        message.ack();
        break;
      case 'parked':
        this.ctx.logger.info({ event_id: outcome.event_id, agent_id: outcome.agent_id }, 'call event for an agent not known yet; parked until the agent is known');
        message.ack();
        break;
      case 'not_answering':
        this.terminate(message, outcome.reason, { event_id: outcome.event_id, agent_id: outcome.agent_id, reason: outcome.reason }, 'call event of a call the agent does not answer');
        break;
      case 'invalid':
        this.terminate(message, outcome.reason, { subject: message.subject, reason: outcome.reason }, 'call event invalid');
        break;
    }
  }
}
