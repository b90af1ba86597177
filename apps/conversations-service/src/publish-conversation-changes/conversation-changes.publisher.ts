import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT, conversationChangesSubject,
  namespacedStream, namespacedSubject, type ConversationChange,
} from '@voice/contracts';
import { OutboxRelay } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';
import { toDetail, toIso } from '../conversation/conversation.views.js';
import { changeForTheBus, changeMessageId, changeOf, showsTheCallOver, withEndedDetail } from './conversation-change.rules.js';
import {
  changesWaitUpTo, deleteRelayedChanges, newestRecordedChange, readCommittedChanges, readEndedConversations, type RecordedChange,
} from './conversation-changes.store.js';

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
    const changes = await this.withEndedDetails(rows.map(changeOf));
    // Sent in order on one connection, so the stream stores a conversation's versions in order; acknowledged together.
    await Promise.all(changes.map((change) => this.publishOne(change)));
  }

  /**
   * A change that shows the call over carries its full record, read now (in one query for the batch): what the
   * outbound conversation.ended sends, so notifications-service never asks for it. A later version's record may
   * show more than this one's list item (an analysis that arrived meanwhile); its own change follows.
   */
  private async withEndedDetails(changes: ConversationChange[]): Promise<ConversationChange[]> {
    const over = changes.filter(showsTheCallOver).map((change) => ({ account_id: change.account_id, conversation_id: change.conversation.id }));
    if (over.length === 0) return changes;
    const rows = await readEndedConversations(this.ctx.dataSource, over);
    const details = new Map(rows.map((row) => [
      `${row.account_id}:${row.id}`,
      toDetail(row.state, { name: row.agent_name, voice_platform: row.voice_platform }, { created_at: toIso(row.created_at), updated_at: toIso(row.updated_at) }),
    ]));
    return changes.map((change) => withEndedDetail(change, details.get(`${change.account_id}:${change.conversation.id}`)));
  }

  private async publishOne(change: ConversationChange): Promise<void> {
    const fitted = changeForTheBus(change);
    const where = { account_id: change.account_id, conversation_id: change.conversation.id, version: change.version };
    if ('refusal' in fitted) {
      // Never publishable: holding it would hold up every change after it.
      this.ctx.logger.error({ ...where, reason: fitted.refusal }, 'conversation change not published');
      return;
    }
    if (fitted.detailLeftOut) this.ctx.logger.warn(where, 'conversation change published without the call’s full record: too big for the bus even without its transcript');
    const subject = namespacedSubject(this.ctx.namespace, conversationChangesSubject(change.account_id));
    await withTimeout(this.ctx.streams.publish(subject, fitted.change, changeMessageId(change)), PUBLISH_TIMEOUT_MS);
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
