import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStream } from '../jetstream.js';
import { runBatches } from './batch-runner.js';
import type { DurableConsumerSpec, MessageStreams, RunningConsumer, StreamMessage } from './message-streams.js';

const nanos = (ms: number) => ms * 1_000_000;

/** A message that is not JSON must reach the handler (to be terminated), not stop the consumer. */
function jsonOrUndefined(m: JsMsg): unknown {
  try {
    return m.json();
  } catch {
    return undefined;
  }
}

/** MessageStreams over NATS JetStream: durable across restarts of the services. */
export class JetStreamStreams implements MessageStreams {
  private readonly js: JetStreamClient;

  constructor(private readonly nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  async ensureStream(stream: string, subjects: string[]): Promise<void> {
    await ensureStream(this.nc, stream, subjects);
  }

  async publish(subject: string, payload: unknown, msgId: string): Promise<void> {
    await this.js.publish(subject, JSON.stringify(payload), { msgID: msgId });
  }

  async consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer> {
    await this.ensureStream(spec.stream, spec.subjects);
    const jsm = await jetstreamManager(this.nc);
    const config = {
      durable_name: spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(spec.ackWaitMs ?? 30_000),
      max_deliver: -1,
      max_ack_pending: 10_000,
    };
    try {
      await jsm.consumers.info(spec.stream, spec.durable);
      await jsm.consumers.update(spec.stream, spec.durable, { ack_wait: config.ack_wait });
    } catch {
      await jsm.consumers.add(spec.stream, config).catch(async (err) => {
        // A replica starting at the same moment may have created it.
        await jsm.consumers.info(spec.stream, spec.durable).catch(() => {
          throw err;
        });
      });
    }
    const consumer = await this.js.consumers.get(spec.stream, spec.durable);
    const batchSize = spec.batchSize ?? 256;
    const messages: ConsumerMessages = await consumer.consume({ max_messages: batchSize * 2 });
    return runBatches(messages, batchSize, handle, (m: JsMsg) => ({
      subject: m.subject,
      data: jsonOrUndefined(m),
      deliveryCount: m.info.deliveryCount,
      msgId: m.headers?.get('Nats-Msg-Id') || undefined,
      ack: () => m.ack(),
      nak: (delayMs) => m.nak(delayMs),
      // nats-server 2.9 does not parse `+TERM <reason>` and would redeliver; the caller logs the reason.
      term: () => m.term(),
    }), () => messages.stop(), spec);
  }
}
