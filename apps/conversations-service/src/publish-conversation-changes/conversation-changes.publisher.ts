import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT, conversationChangesSubject,
  namespacedStream, namespacedSubject, type ConversationChange,
} from '@voice/contracts';
import { OutboxStreamPublisher, type OutboxMessage } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';
import { toDetail, toIso } from '../conversation/conversation.views.js';
import { changeForTheBus, changeMessageId, changeOf, showsTheCallOver, withEndedDetail } from './conversation-change.rules.js';
import {
  CONVERSATION_CHANGES_OUTBOX, changesWaitUpTo, newestRecordedChange, readEndedConversations, type RecordedChange,
} from './conversation-changes.store.js';

export const CONVERSATION_CHANGES_RELAY_NAME = 'conversation-changes-to-jetstream';
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
  private publisher?: OutboxStreamPublisher<RecordedChange>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    const { namespace } = this.ctx;
    this.publisher = new OutboxStreamPublisher<RecordedChange>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      relayName: CONVERSATION_CHANGES_RELAY_NAME,
      outbox: CONVERSATION_CHANGES_OUTBOX,
      streams: this.ctx.streams,
      stream: {
        name: namespacedStream(namespace, CONVERSATION_CHANGES_STREAM),
        subjects: [namespacedSubject(namespace, `${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`)],
        limits: CONVERSATION_CHANGES_RETENTION,
      },
      logger: this.ctx.logger,
      pollIntervalMs: 50,
      batchSize: BATCH_SIZE,
      messages: async (rows) => (await this.withEndedDetails(rows.map(changeOf))).map((change) => this.messageOf(change)),
    });
    this.publisher.start();
  }

  /** A recording just committed changes: publish them now rather than at the next poll. */
  enqueue(changes: readonly ConversationChange[]): void {
    if (changes.length > 0) this.publisher?.nudge();
  }

  /** Resolves once every change committed so far is on the bus. */
  async settled(): Promise<void> {
    const newest = await newestRecordedChange(this.ctx.dataSource);
    while (newest !== null && (await changesWaitUpTo(this.ctx.dataSource, newest))) {
      this.publisher?.nudge();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.publisher?.stop();
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

  /** The message of a change, or undefined for one that can never be published (logged). */
  private messageOf(change: ConversationChange): OutboxMessage | undefined {
    const fitted = changeForTheBus(change);
    const where = { account_id: change.account_id, conversation_id: change.conversation.id, version: change.version };
    if ('refusal' in fitted) {
      // Never publishable: holding it would hold up every change after it.
      this.ctx.logger.error({ ...where, reason: fitted.refusal }, 'conversation change not published');
      return undefined;
    }
    if (fitted.detailLeftOut) this.ctx.logger.warn(where, 'conversation change published without the call’s full record: too big for the bus even without its transcript');
    return { subject: namespacedSubject(this.ctx.namespace, conversationChangesSubject(change.account_id)), payload: fitted.change, msgId: changeMessageId(change) };
  }
}
