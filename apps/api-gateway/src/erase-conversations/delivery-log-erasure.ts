import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATIONS_ERASED_RETENTION, CONVERSATIONS_ERASED_STREAM, CONVERSATIONS_ERASED_SUBJECT_ROOT, isConversationsErased,
  namespacedStream, namespacedSubject, type ConversationsErased,
} from '@voice/contracts';
import type { MessageStreams, RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE, GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';

export const GATEWAY_ERASURES_DURABLE = 'api-gateway-erasures';

/** Deletes the inbound webhook deliveries (raw bodies included) of erased conversations and keeps their tombstones. */
export async function eraseDeliveryLog(dataSource: DataSource, notices: readonly ConversationsErased[]): Promise<number> {
  return dataSource.transaction(async (em) => {
    let deleted = 0;
    for (const notice of notices) {
      if (notice.conversation_ids.length === 0) continue;
      await em.query(
        `INSERT INTO gateway.erased_conversations (account_id, conversation_id, erased_at)
         SELECT $1, id, $3 FROM unnest($2::text[]) AS id ON CONFLICT DO NOTHING`,
        [notice.account_id, notice.conversation_ids, notice.erased_at],
      );
      const [, count]: [unknown, number] = await em.query(
        'DELETE FROM gateway.webhook_deliveries WHERE account_id = $1 AND conversation_id = ANY($2::text[])', [notice.account_id, notice.conversation_ids],
      );
      deleted += count;
    }
    return deleted;
  });
}

/**
 * The gateway's part of an erasure: one durable consumer of CONVERSATIONS_ERASED shared by every gateway replica
 * (each notice handled once), acked after its transaction committed.
 */
@Injectable()
export class DeliveryLogErasure implements OnApplicationBootstrap, OnApplicationShutdown {
  private running?: RunningConsumer;

  constructor(
    @Inject(MESSAGE_STREAMS) private readonly streams: MessageStreams,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const stream = namespacedStream(this.settings.namespace, CONVERSATIONS_ERASED_STREAM);
    const subjects = [namespacedSubject(this.settings.namespace, `${CONVERSATIONS_ERASED_SUBJECT_ROOT}.>`)];
    await this.streams.ensureStream(stream, subjects, CONVERSATIONS_ERASED_RETENTION);
    this.running = await this.streams.consume(
      { stream, subjects, durable: GATEWAY_ERASURES_DURABLE, batchSize: 50, logger: this.logger },
      async (batch: StreamMessage[]) => {
        const kept = batch.filter((message) => {
          if (isConversationsErased(message.data)) return true;
          this.logger.warn({ subject: message.subject }, 'malformed erasure notice; terminated');
          message.term('malformed');
          return false;
        });
        if (kept.length === 0) return;
        const deliveries = await eraseDeliveryLog(this.dataSource, kept.map((m) => m.data as ConversationsErased));
        this.logger.info({ notices: kept.length, deliveries }, 'erased conversations: inbound webhook deliveries deleted');
        for (const message of kept) message.ack();
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running?.stop();
  }
}
