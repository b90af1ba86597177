import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT, conversationChangesSubject,
  namespacedStream, namespacedSubject, type ConversationChange,
} from '@voice/contracts';
import { OutboxRelay } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';
import { changeMessageId, changeMustFitTheBus, changeOf } from './conversation-change.rules.js';
import { changesWaitUpTo, deleteRelayedChanges, newestRecordedChange, readCommittedChanges, type RecordedChange } from './conversation-changes.store.js';

export const CONVERSATION_CHANGES_RELAY_NAME = 'conversation-changes-to-jetstream';
/** One publish is abandoned after this long (the stream's acknowledgement never came); the batch is tried again. */
const PUBLISH_TIMEOUT_MS = 5_000;
/** Changes published per round: one transaction's worth of a busy ingest, their acknowledgements awaited together. */
const BATCH_SIZE = 512;

/**
 * Publishes what committed recordings changed in the list read model to CONVERSATION_CHANGES, one message per
 * conversation version on its account's subject (the live stream, GET /v1/conversations/stream, and the outbound
 * webhooks read them). PostgreSQL is the record: the recording transaction leaves each change in the outbox
 * table (a trigger, in the same transaction, so a rolled-back write leaves none), and the relay publishes what
 * is committed, in commit order, moving its checkpoint only after JetStream acknowledged the whole batch. A
 * process that dies before that publishes the batch again on restart (the version is the message id, so the
 * stream drops the repeat within its window). Recording never waits for the bus: a stream that refuses the
 * changes holds them in the outbox until it takes them again.
 */
@Injectable()
export class ConversationChangesPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay?: OutboxRelay<RecordedChange>;
  private ready?: Promise<void>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    // The stream exists before the first change (followers can start); if the bus refuses now, the first publish tries again.
    void this.ensureStream().catch((err: Error) => this.ctx.logger.warn({ reason: err.message }, 'could not create the conversation changes stream yet'));
    this.relay = new OutboxRelay<RecordedChange>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      name: CONVERSATION_CHANGES_RELAY_NAME,
      read: readCommittedChanges,
      publish: (rows) => this.publishBatch(rows),
      afterCheckpoint: deleteRelayedChanges,
      logger: this.ctx.logger,
      pollIntervalMs: 50,
      batchSize: BATCH_SIZE,
    });
    this.relay.start();
  }

  /** A recording just committed changes: publish them now rather than at the next poll. */
  enqueue(changes: readonly ConversationChange[]): void {
    if (changes.length > 0) this.relay?.nudge();
  }

  /** Resolves once every change committed so far is on the bus. */
  async settled(): Promise<void> {
    const newest = await newestRecordedChange(this.ctx.dataSource);
    while (newest !== null && (await changesWaitUpTo(this.ctx.dataSource, newest))) {
      this.relay?.nudge();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }

  private async publishBatch(rows: RecordedChange[]): Promise<void> {
    await this.ensureStream();
    // Sent in order on one connection, so the stream stores a conversation's versions in order; acknowledged together.
    await Promise.all(rows.map((row) => this.publishOne(changeOf(row))));
  }

  private async publishOne(change: ConversationChange): Promise<void> {
    const payload = JSON.stringify(change);
    const refusal = changeMustFitTheBus(change, payload);
    if (refusal) {
      // Never publishable: holding it would hold up every change after it.
      this.ctx.logger.error(
        { account_id: change.account_id, conversation_id: change.conversation.id, version: change.version, reason: refusal },
        'conversation change not published',
      );
      return;
    }
    const subject = namespacedSubject(this.ctx.namespace, conversationChangesSubject(change.account_id));
    await withTimeout(this.ctx.streams.publish(subject, change, changeMessageId(change)), PUBLISH_TIMEOUT_MS);
  }

  private ensureStream(): Promise<void> {
    this.ready ??= this.ctx.streams
      .ensureStream(
        namespacedStream(this.ctx.namespace, CONVERSATION_CHANGES_STREAM),
        [namespacedSubject(this.ctx.namespace, `${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`)],
        CONVERSATION_CHANGES_RETENTION,
      )
      .catch((err) => {
        this.ready = undefined;
        throw err;
      });
    return this.ready;
  }
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no acknowledgement within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
