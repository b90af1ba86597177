import {
  CONVERSATIONS_ERASED_RETENTION, CONVERSATIONS_ERASED_STREAM, CONVERSATIONS_ERASED_SUBJECT_ROOT, isConversationsErased,
  namespacedStream, namespacedSubject, type ConversationsErased,
} from '@voice/contracts';
import type { MessageStreams, RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

export const CONVERSATIONS_ERASED_DURABLE = 'notifications-service-erasures';

/**
 * Erases what this service holds of erased conversations (CONVERSATIONS_ERASED): their events, and with them
 * (ON DELETE CASCADE) every delivery and attempt, pending or not — an erased call is never sent again. Leaves a
 * tombstone per conversation, which keeps a change of it consumed later from recording a new event.
 */
export async function eraseConversationEvents(dataSource: DataSource, notices: readonly ConversationsErased[]): Promise<number> {
  return dataSource.transaction(async (em) => {
    let erased = 0;
    for (const notice of notices) {
      const ids = [...new Set(notice.conversation_ids)].sort();
      if (ids.length === 0) continue;
      // The lock the recording of a conversation's changes takes: a recording in flight finishes first, or sees the tombstone.
      for (const id of ids) await em.query(`SELECT pg_advisory_xact_lock(hashtext('notifications-conversation:' || $1))`, [id]);
      await em.query(
        `INSERT INTO notifications.erased_conversations (account_id, conversation_id, erased_at)
         SELECT $1, id, $3 FROM unnest($2::text[]) AS id ON CONFLICT DO NOTHING`,
        [notice.account_id, ids, notice.erased_at],
      );
      const [, count]: [unknown, number] = await em.query(
        'DELETE FROM notifications.events WHERE account_id = $1 AND conversation_id = ANY($2::text[])', [notice.account_id, ids],
      );
      erased += count;
    }
    return erased;
  });
}

export class EraseConversationsConsumer {
  private running?: RunningConsumer;

  constructor(private readonly settings: { streams: MessageStreams; namespace?: string; logger: Logger; dataSource: DataSource; ackWaitMs?: number }) {}

  async start(): Promise<void> {
    const { streams, namespace, logger, dataSource } = this.settings;
    const stream = namespacedStream(namespace, CONVERSATIONS_ERASED_STREAM);
    const subjects = [namespacedSubject(namespace, `${CONVERSATIONS_ERASED_SUBJECT_ROOT}.>`)];
    // Created here with the retention its publisher gives it, in case this service starts first.
    await streams.ensureStream(stream, subjects, CONVERSATIONS_ERASED_RETENTION);
    this.running = await streams.consume(
      { stream, subjects, durable: CONVERSATIONS_ERASED_DURABLE, batchSize: 50, ackWaitMs: this.settings.ackWaitMs, logger },
      async (batch: StreamMessage[]) => {
        const kept: StreamMessage[] = [];
        for (const message of batch) {
          if (isConversationsErased(message.data)) kept.push(message);
          else {
            logger.warn({ subject: message.subject }, 'malformed erasure notice; terminated');
            message.term('malformed');
          }
        }
        if (kept.length === 0) return;
        const events = await eraseConversationEvents(dataSource, kept.map((m) => m.data as ConversationsErased));
        logger.info({ notices: kept.length, events }, 'erased conversations: events and deliveries deleted');
        for (const message of kept) message.ack();
      },
    );
  }

  async stop(): Promise<void> {
    await this.running?.stop();
  }
}
