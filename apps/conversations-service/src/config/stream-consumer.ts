import { namespacedStream, namespacedSubject } from '@voice/contracts';
import type { RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { ServiceContext } from './service-context.js';

export interface StreamSource {
  stream: string;
  subjectRoot: string;
  durable: string;
}

/** A durable consumer of one stream of this deployment's namespace, tuned by the service context. */
export abstract class StreamConsumer {
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
  abstract handle(messages: StreamMessage[]): Promise<void>;
}
