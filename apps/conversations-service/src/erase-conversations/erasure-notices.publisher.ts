import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATIONS_ERASED_RETENTION, CONVERSATIONS_ERASED_STREAM, CONVERSATIONS_ERASED_SUBJECT_ROOT, conversationsErasedSubject,
  namespacedStream, namespacedSubject, type ConversationsErased, type ErasureReason,
} from '@voice/contracts';
import { OutboxRelay, readCommittedRowsAfter, type CommittedPosition } from '@voice/service-kit';
import type { QueryRunner } from 'typeorm';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';

export const ERASURE_NOTICES_RELAY_NAME = 'erasure-notices-to-jetstream';
const PUBLISH_TIMEOUT_MS = 5_000;

interface ErasureNoticeRow extends CommittedPosition {
  account_id: string;
  conversation_ids: string[];
  reason: ErasureReason;
  erased_at: string;
}

function readCommittedNotices(runner: QueryRunner, after: CommittedPosition, limit: number): Promise<ErasureNoticeRow[]> {
  return readCommittedRowsAfter<ErasureNoticeRow>(
    runner,
    'conversations.erasure_notices',
    `r.account_id, r.conversation_ids, r.reason, to_char(r.erased_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS erased_at`,
    after,
    limit,
  );
}

async function deleteRelayedNotices(runner: QueryRunner, last: CommittedPosition): Promise<void> {
  await runner.query('DELETE FROM conversations.erasure_notices WHERE (transaction_id, global_position) <= ($1::xid8, $2::bigint)', [last.transaction_id, last.global_position]);
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
  private relay?: OutboxRelay<ErasureNoticeRow>;
  private ready?: Promise<void>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    void this.ensureStream().catch((err: Error) => this.ctx.logger.warn({ reason: err.message }, 'could not create the conversations erased stream yet'));
    this.relay = new OutboxRelay<ErasureNoticeRow>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      name: ERASURE_NOTICES_RELAY_NAME,
      read: readCommittedNotices,
      publish: (rows) => this.publishBatch(rows),
      afterCheckpoint: deleteRelayedNotices,
      logger: this.ctx.logger,
      pollIntervalMs: 200,
      batchSize: 64,
    });
    this.relay.start();
  }

  /** An erasure just committed: publish its notice now rather than at the next poll. */
  nudge(): void {
    this.relay?.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }

  private async publishBatch(rows: ErasureNoticeRow[]): Promise<void> {
    await this.ensureStream();
    await Promise.all(rows.map((row) => {
      const notice: ConversationsErased = {
        notice_id: `erasure:${row.global_position}`, account_id: row.account_id, conversation_ids: row.conversation_ids, reason: row.reason, erased_at: row.erased_at,
      };
      const subject = namespacedSubject(this.ctx.namespace, conversationsErasedSubject(row.account_id));
      return withTimeout(this.ctx.streams.publish(subject, notice, notice.notice_id), PUBLISH_TIMEOUT_MS);
    }));
  }

  private ensureStream(): Promise<void> {
    this.ready ??= this.ctx.streams
      .ensureStream(
        namespacedStream(this.ctx.namespace, CONVERSATIONS_ERASED_STREAM),
        [namespacedSubject(this.ctx.namespace, `${CONVERSATIONS_ERASED_SUBJECT_ROOT}.>`)],
        CONVERSATIONS_ERASED_RETENTION,
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
