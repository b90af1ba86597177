import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATIONS_ERASED_RETENTION, CONVERSATIONS_ERASED_STREAM, CONVERSATIONS_ERASED_SUBJECT_ROOT, conversationsErasedSubject,
  namespacedStream, namespacedSubject, type ConversationsErased, type ErasureReason,
} from '@voice/contracts';
import { OutboxStreamPublisher, type CommittedPosition } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';

export const ERASURE_NOTICES_RELAY_NAME = 'erasure-notices-to-jetstream';

interface ErasureNoticeRow extends CommittedPosition {
  account_id: string;
  conversation_ids: string[];
  reason: ErasureReason;
  erased_at: string;
}

/**
 * Tells the other services which conversations were erased (CONVERSATIONS_ERASED), so they drop their copies:
 * notifications-service its events and deliveries, the gateway its inbound webhook log. Each erasing transaction
 * leaves its notice in an outbox table, relayed after the commit and deleted once JetStream acknowledged it
 * (its position is the message id: a relay that dies before its checkpoint publishes it again, and the stream drops
 * the repeat). A notice names conversation ids only.
 */
@Injectable()
export class ErasureNoticesPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private publisher?: OutboxStreamPublisher<ErasureNoticeRow>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    const { namespace } = this.ctx;
    this.publisher = new OutboxStreamPublisher<ErasureNoticeRow>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      relayName: ERASURE_NOTICES_RELAY_NAME,
      outbox: {
        table: 'conversations.erasure_notices',
        columns: `r.account_id, r.conversation_ids, r.reason, to_char(r.erased_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS erased_at`,
      },
      streams: this.ctx.streams,
      stream: {
        name: namespacedStream(namespace, CONVERSATIONS_ERASED_STREAM),
        subjects: [namespacedSubject(namespace, `${CONVERSATIONS_ERASED_SUBJECT_ROOT}.>`)],
        limits: CONVERSATIONS_ERASED_RETENTION,
      },
      logger: this.ctx.logger,
      pollIntervalMs: 200,
      batchSize: 64,
      messages: (rows) => rows.map((row) => {
        const notice: ConversationsErased = {
          notice_id: `erasure:${row.global_position}`, account_id: row.account_id, conversation_ids: row.conversation_ids, reason: row.reason, erased_at: row.erased_at,
        };
        return { subject: namespacedSubject(namespace, conversationsErasedSubject(row.account_id)), payload: notice, msgId: notice.notice_id };
      }),
    });
    this.publisher.start();
  }

  /** An erasure just committed: publish its notice now rather than at the next poll. */
  nudge(): void {
    this.publisher?.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.publisher?.stop();
  }
}
