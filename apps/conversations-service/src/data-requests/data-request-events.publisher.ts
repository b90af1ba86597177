import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  DATA_REQUEST_EVENTS_RETENTION, DATA_REQUEST_EVENTS_STREAM, DATA_REQUEST_EVENTS_SUBJECT_ROOT, dataRequestEventsSubject,
  namespacedStream, namespacedSubject, type DataRequestSettled,
} from '@voice/contracts';
import { OutboxStreamPublisher, type CommittedPosition } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { CONVERSATIONS_SCHEMA } from '../database/conversations-database.js';

export const DATA_REQUEST_EVENTS_RELAY_NAME = 'data-request-events-to-jetstream';

interface SettlementRow extends CommittedPosition {
  account_id: string;
  request_id: string;
  request_type: DataRequestSettled['request_type'];
  status: DataRequestSettled['status'];
  conversations_done: number;
  settled_at: string;
}

/**
 * Publishes each data request's settlement (completed or failed) to DATA_REQUEST_EVENTS from the outbox the settling
 * transaction wrote (migration 1765720000000), after the commit, checkpoint after JetStream's acknowledgement; the
 * request id is the message id, so a relay that dies before its checkpoint publishes nothing twice.
 */
@Injectable()
export class DataRequestEventsPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private publisher?: OutboxStreamPublisher<SettlementRow>;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger' | 'dataSource'>) {}

  onApplicationBootstrap(): void {
    const { namespace } = this.ctx;
    this.publisher = new OutboxStreamPublisher<SettlementRow>({
      dataSource: this.ctx.dataSource,
      schema: CONVERSATIONS_SCHEMA,
      relayName: DATA_REQUEST_EVENTS_RELAY_NAME,
      outbox: {
        table: 'conversations.data_request_events',
        columns: `r.account_id, r.request_id, r.request_type, r.status, r.conversations_done,
                  to_char(r.settled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS settled_at`,
      },
      streams: this.ctx.streams,
      stream: {
        name: namespacedStream(namespace, DATA_REQUEST_EVENTS_STREAM),
        subjects: [namespacedSubject(namespace, `${DATA_REQUEST_EVENTS_SUBJECT_ROOT}.>`)],
        limits: DATA_REQUEST_EVENTS_RETENTION,
      },
      logger: this.ctx.logger,
      pollIntervalMs: 500,
      batchSize: 64,
      messages: (rows) => rows.map((row) => {
        const event: DataRequestSettled = {
          event_id: `data-request-settled:${row.request_id}`, type: 'DataRequestSettled', account_id: row.account_id, request_id: row.request_id,
          request_type: row.request_type, status: row.status, conversations_done: row.conversations_done, settled_at: row.settled_at,
        };
        return { subject: namespacedSubject(namespace, dataRequestEventsSubject(row.account_id)), payload: event, msgId: event.event_id };
      }),
    });
    this.publisher.start();
  }

  /** A request just settled: publish it now rather than at the next poll. */
  nudge(): void {
    this.publisher?.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.publisher?.stop();
  }
}
