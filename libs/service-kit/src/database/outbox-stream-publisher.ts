import type { Logger } from 'pino';
import type { DataSource, QueryRunner } from 'typeorm';
import type { MessageStreams, StreamLimits } from '../streams/message-streams.js';
import { readCommittedRowsAfter } from './event-store.js';
import { OutboxRelay, type CommittedPosition } from './outbox-relay.js';

/** One message of a batch: where it goes, what it says, and its id (the stream drops a repeat within its window). */
export interface OutboxMessage {
  subject: string;
  payload: unknown;
  msgId: string;
}

export interface OutboxStreamPublisherOptions<Row extends CommittedPosition> {
  dataSource: DataSource;
  /** The schema holding the relay's checkpoint. */
  schema: string;
  /** The checkpoint's name; one relay per name runs at a time across all replicas. */
  relayName: string;
  /** The outbox: a schema-qualified table with `transaction_id xid8` and `global_position`, and the select list read from it (alias `r`). */
  outbox: { table: string; columns: string };
  streams: MessageStreams;
  /** The stream the messages go to, created (with these limits) before the first one. */
  stream: { name: string; subjects: string[]; limits: StreamLimits };
  logger: Logger;
  pollIntervalMs: number;
  batchSize: number;
  /** A batch's messages, in order; `undefined` for a row that can never be published (the caller logs why). */
  messages: (rows: Row[]) => Promise<Array<OutboxMessage | undefined>> | Array<OutboxMessage | undefined>;
  /** One publish is abandoned after this long (the stream's acknowledgement never came); the batch is tried again. */
  publishTimeoutMs?: number;
}

const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;

/**
 * An outbox table relayed to a JetStream stream: the rows a transaction wrote are published after it committed, in
 * commit order (service-kit's OutboxRelay: never past a transaction in flight, one active replica), the checkpoint
 * moves only once JetStream acknowledged the whole batch, and the rows it passed are deleted. A process that dies
 * before the checkpoint publishes the batch again (the message ids make the stream drop the repeats); a stream that
 * refuses holds the rows in the outbox until it takes them again.
 */
export class OutboxStreamPublisher<Row extends CommittedPosition> {
  private relay?: OutboxRelay<Row>;
  private ready?: Promise<void>;

  constructor(private readonly options: OutboxStreamPublisherOptions<Row>) {}

  start(): void {
    const { dataSource, schema, relayName, outbox, logger, pollIntervalMs, batchSize, stream } = this.options;
    // The stream exists before the first row (followers can start); if the bus refuses now, the first publish tries again.
    void this.ensureStream().catch((err: Error) => logger.warn({ stream: stream.name, reason: err.message }, 'could not create the stream yet'));
    this.relay = new OutboxRelay<Row>({
      dataSource,
      schema,
      name: relayName,
      read: (runner, after, limit) => readCommittedRowsAfter<Row>(runner, outbox.table, outbox.columns, after, limit),
      publish: (rows) => this.publishBatch(rows),
      afterCheckpoint: (runner, last) => deleteRelayedRows(runner, outbox.table, last),
      logger,
      pollIntervalMs,
      batchSize,
    });
    this.relay.start();
  }

  /** Rows were just committed: publish them now rather than at the next poll. */
  nudge(): void {
    this.relay?.nudge();
  }

  async stop(): Promise<void> {
    await this.relay?.stop();
  }

  private async publishBatch(rows: Row[]): Promise<void> {
    await this.ensureStream();
    const messages = await this.options.messages(rows);
    const timeoutMs = this.options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
    // Sent in order on one connection, so the stream stores them in order; acknowledged together.
    await Promise.all(messages.map((message) => message && withTimeout(this.options.streams.publish(message.subject, message.payload, message.msgId), timeoutMs)));
  }

  private ensureStream(): Promise<void> {
    const { streams, stream } = this.options;
    this.ready ??= streams.ensureStream(stream.name, stream.subjects, stream.limits).catch((err) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }
}

/** Forget what the checkpoint has passed: it is on the bus. */
export async function deleteRelayedRows(runner: QueryRunner, table: string, last: CommittedPosition): Promise<void> {
  await runner.query(`DELETE FROM ${table} WHERE (transaction_id, global_position) <= ($1::xid8, $2::bigint)`, [last.transaction_id, last.global_position]);
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no acknowledgement within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
