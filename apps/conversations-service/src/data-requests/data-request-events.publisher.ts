import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  DATA_REQUEST_EVENTS_RETENTION, DATA_REQUEST_EVENTS_STREAM, DATA_REQUEST_EVENTS_SUBJECT_ROOT, dataRequestEventsSubject,
  namespacedStream, namespacedSubject, type DataRequestSettled,
} from '@voice/contracts';
import { OutboxRelay, readCommittedRowsAfter, type CommittedPosition } from '@voice/service-kit';
import type { QueryRunner } from 'typeorm';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';

export const DATA_REQUEST_EVENTS_RELAY_NAME = 'data-request-events-to-jetstream';
const PUBLISH_TIMEOUT_MS = 5_000;

interface SettlementRow extends CommittedPosition {
  account_id: string;
  request_id: string;
  request_type: DataRequestSettled['request_type'];
  status: DataRequestSettled['status'];
  conversations_done: number;
  settled_at: string;
}

function readCommittedSettlements(runner: QueryRunner, after: CommittedPosition, limit: number): Promise<SettlementRow[]> {
  return readCommittedRowsAfter<SettlementRow>(
    runner,
    'conversations.data_request_events',
    `r.account_id, r.request_id, r.request_type, r.status, r.conversations_done,
     to_char(r.settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS settled_at`,
    after,
    limit,
  );
}

async function deleteRelayedSettlements(runner: QueryRunner, last: CommittedPosition): Promise<void> {
  await runner.query('DELETE FROM conversations.data_request_events WHERE (transaction_id, global_position) <= ($1::xid8, $2::bigint)', [last.transaction_id, last.global_position]);
}

/**
 * Publishes each data request's settlement (completed or failed) to DATA_REQUEST_EVENTS from the outbox the settling
 * transaction wrote (migration 1765720000000), after the commit, checkpoint after JetStream's acknowledgement; the
 * request id is the message id, so a relay that dies before its checkpoint publishes nothing twice.
 */
@Injectable()
export class DataRequestEventsPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay?: OutboxRelay<SettlementRow>;
  private ready?: Promise<void>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    void this.ensureStream().catch((err: Error) => this.ctx.logger.warn({ reason: err.message }, 'could not create the data request events stream yet'));
    this.relay = new OutboxRelay<SettlementRow>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      name: DATA_REQUEST_EVENTS_RELAY_NAME,
      read: readCommittedSettlements,
      publish: (rows) => this.publishBatch(rows),
      afterCheckpoint: deleteRelayedSettlements,
      logger: this.ctx.logger,
      pollIntervalMs: 500,
      batchSize: 64,
    });
    this.relay.start();
  }

  /** A request just settled: publish it now rather than at the next poll. */
  nudge(): void {
    this.relay?.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }

  private async publishBatch(rows: SettlementRow[]): Promise<void> {
    await this.ensureStream();
    await Promise.all(rows.map((row) => {
      const event: DataRequestSettled = {
        event_id: `data-request-settled:${row.request_id}`, type: 'DataRequestSettled', account_id: row.account_id, request_id: row.request_id,
        request_type: row.request_type, status: row.status, conversations_done: row.conversations_done, settled_at: row.settled_at,
      };
      const subject = namespacedSubject(this.ctx.namespace, dataRequestEventsSubject(row.account_id));
      return withTimeout(this.ctx.streams.publish(subject, event, event.event_id), PUBLISH_TIMEOUT_MS);
    }));
  }

  private ensureStream(): Promise<void> {
    this.ready ??= this.ctx.streams
      .ensureStream(
        namespacedStream(this.ctx.namespace, DATA_REQUEST_EVENTS_STREAM),
        [namespacedSubject(this.ctx.namespace, `${DATA_REQUEST_EVENTS_SUBJECT_ROOT}.>`)],
        DATA_REQUEST_EVENTS_RETENTION,
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
