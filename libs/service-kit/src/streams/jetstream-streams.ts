import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStream } from '../jetstream.js';
import { runBatches } from './batch-runner.js';
import { DEFAULT_ACK_WAIT_MS, type DurableConsumerSpec, type MessageStreams, type RunningConsumer, type StreamMessage } from './message-streams.js';

const nanos = (ms: number) => ms * 1_000_000;
/** How long one pull request waits on the server for messages before the next is sent. */
const PULL_EXPIRES_MS = 1_000;

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
      ack_wait: nanos(spec.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
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
    let stopped = false;
    let current: ConsumerMessages | undefined;
    // Pull a batch at a time, and only when the runner has room for it: every message the server handed out is
    // then in the runner's hands, which keeps it alive (`working`) until it is settled. A pull waits at most
    // PULL_EXPIRES_MS for messages (delivered as they arrive), then the next one starts.
    const pull = (room: () => Promise<void>) =>
      (async function* () {
        while (!stopped) {
          await room();
          if (stopped) return;
          current = await consumer.fetch({ max_messages: batchSize, expires: PULL_EXPIRES_MS });
          yield* current;
        }
      })();
    return runBatches(pull, batchSize, handle, (m: JsMsg) => ({
      subject: m.subject,
      data: jsonOrUndefined(m),
      deliveryCount: m.info.deliveryCount,
      msgId: m.headers?.get('Nats-Msg-Id') || undefined,
      ack: () => m.ack(),
      nak: (delayMs) => m.nak(delayMs),
      // nats-server 2.9 does not parse `+TERM <reason>` and would redeliver; the caller logs the reason.
      term: () => m.term(),
      working: () => m.working(),
    }), () => {
      stopped = true;
      current?.stop();
    }, spec);
  }
}
