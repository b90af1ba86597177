import { namespacedStream, namespacedSubject } from '@voice/contracts';
import type { RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { ServiceContext } from '../config/service-context.js';

export interface StreamSource {
  stream: string;
  subjectRoot: string;
  durable: string;
  /** Batches processed at once (default 1), and what keeps messages on one of them; see DurableConsumerSpec. */
  concurrency?: number;
  partitionKey?: (message: StreamMessage) => string;
}

/**
 * A durable consumer of one stream of this deployment's namespace, tuned by the
 * service context. Every delivery of a batch goes the same way: messages that
 * can be judged alone are screened out and settled first, the rest are processed
 * together (one command, one transaction), then each is settled (ack or term) by
 * its outcome. If processing throws, the rest stay unsettled and the batch
 * runner redelivers or isolates them.
 */
export abstract class StreamConsumer<TOutcome> {
  private running?: RunningConsumer;

  protected constructor(protected readonly ctx: ServiceContext, private readonly source: StreamSource) {}

  async start(): Promise<void> {
    const { streams, namespace, tuning } = this.ctx;
    this.running = await streams.consume(
      {
        stream: namespacedStream(namespace, this.source.stream),
        subjects: [namespacedSubject(namespace, `${this.source.subjectRoot}.>`)],
        durable: this.source.durable,
        batchSize: tuning.batchSize,
        concurrency: this.source.concurrency,
        partitionKey: this.source.partitionKey,
        ackWaitMs: tuning.ackWaitMs,
        // Failed batches and terminated poison messages are reported in this service's own log.
        logger: this.ctx.logger,
      },
      (batch) => this.handle(batch),
    );
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }

  /** One delivery of a batch, exactly as the bus hands it over (tests replay deliveries through it). */
  async handle(messages: StreamMessage[]): Promise<void> {
    const rest: StreamMessage[] = [];
    for (const message of messages) {
      const outcome = this.screen(message);
      if (outcome === undefined) rest.push(message);
      else this.settle(message, outcome);
    }
    if (rest.length === 0) return;
    const outcomes = await this.process(rest);
    rest.forEach((message, i) => this.settle(message, outcomes[i]));
  }

  /**
   * The outcome of a message that is judged without processing (settled at once,
   * so a failing batch does not hold it); undefined to process it with the batch.
   */
  protected screen(_message: StreamMessage): TOutcome | undefined {
    return undefined;
  }

  /** Process the messages together; one outcome per message, in order. Throws to leave them all unsettled. */
  protected abstract process(messages: readonly StreamMessage[]): Promise<TOutcome[]>;

  /** Ack or term the message by its outcome, with its log line. */
  protected abstract settle(message: StreamMessage, outcome: TOutcome): void;

  /** Retrying cannot help this message: logged at warn, never delivered again. */
  protected terminate(message: StreamMessage, reason: string, fields: Record<string, unknown>, what: string): void {
    this.ctx.logger.warn(fields, `${what}; terminated`);
    message.term(reason);
  }
}
