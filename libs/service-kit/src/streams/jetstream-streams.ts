import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg,
} from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf, ReplyFailed, ReplyInbox } from '../bus/reply-inbox.js';
import { DEFAULT_JETSTREAM_REPLICAS, ensureStream } from '../bus/jetstream.js';
import { runBatches } from './batch-runner.js';
import {
  DEFAULT_ACK_WAIT_MS, type DurableConsumerSpec, type FollowedMessage, type Follower, type FollowSpec, type MessageStreams, type PublishOptions, type RunningConsumer,
  type StreamBounds, type StreamLimits, type StreamMessage,
} from './message-streams.js';

const nanos = (ms: number) => ms * 1_000_000;
/** How long one pull request waits on the server for messages before the next is sent. */
const PULL_EXPIRES_MS = 1_000;
/** While a pull waits, the server sends a heartbeat after this long without a message (nats.js's least). */
const PULL_HEARTBEAT_MS = 500;
/**
 * A pull with neither a message nor a heartbeat for this long is lost at the server: it is stopped and the next one
 * starts. nats-server 2.9 (Debian 12's) now and then ignores a pull sent as the previous one expires; the client's own
 * check (two heartbeats missed, then an error and a pause) left the stream unread for 1.2–2.2 s, past the outbound
 * events' 1 s latency bound.
 */
const PULL_SILENCE_MS = PULL_HEARTBEAT_MS + 200;
/** The longest pause before pulling again after a failed pull. */
const PULL_RETRY_MAX_MS = 2_000;
/** How long the server keeps a follower's ephemeral consumer once nobody reads from it. */
const FOLLOWER_INACTIVE_MS = 30_000;
/** How long a publish waits for the stream's acknowledgement (nats.js's default for `js.publish`). */
const PUBLISH_ACK_TIMEOUT_MS = 5_000;

/** A message that is not JSON must reach the handler (to be terminated), not stop the consumer. */
function jsonOrUndefined(m: JsMsg): unknown {
  try {
    return m.json();
  } catch {
    return undefined;
  }
}

export interface JetStreamStreamsOptions {
  /** Servers holding each stream and durable consumer created here (JETSTREAM_REPLICAS). */
  replicas?: number;
}

/** MessageStreams over NATS JetStream: durable across restarts of the services. */
export class JetStreamStreams implements MessageStreams {
  private readonly js: JetStreamClient;
  private readonly replicas: number;
  private replies: ReplyInbox | undefined;

  constructor(private readonly nc: NatsConnection, options: JetStreamStreamsOptions = {}) {
    this.js = jetstream(nc);
    this.replicas = options.replicas ?? DEFAULT_JETSTREAM_REPLICAS;
  }

  async ensureStream(stream: string, subjects: string[], limits?: StreamLimits): Promise<void> {
    await ensureStream(this.nc, stream, subjects, limits, this.replicas);
  }

  async bounds(stream: string): Promise<StreamBounds> {
    const { state, created } = await (await jetstreamManager(this.nc)).streams.info(stream);
    const createdMs = Date.parse(created);
    // An empty stream reports first_seq 0 when it never held a message.
    return state.messages === 0 ? { first: state.last_seq + 1, last: state.last_seq, createdMs } : { first: state.first_seq, last: state.last_seq, createdMs };
  }

  async follow(spec: FollowSpec, onMessage: (message: FollowedMessage) => void): Promise<Follower> {
    // Always from an explicit sequence: the library's ordered consumer re-creates itself from the last sequence it
    // saw, and from sequence 1 when it saw none — a "new messages only" start would then replay the whole stream.
    const after = spec.afterSequence ?? (await this.bounds(spec.stream)).last;
    const consumer = await this.js.consumers.get(spec.stream, {
      filter_subjects: spec.subject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: after + 1,
      // A reader that vanished without stopping (a crashed gateway) leaves nothing on the server for long.
      inactive_threshold: FOLLOWER_INACTIVE_MS,
    });
    const messages = await consumer.consume({
      callback: (m: JsMsg) => onMessage({ sequence: m.seq, subject: m.subject, data: jsonOrUndefined(m) }),
    });
    return {
      stop: async () => {
        await messages.close().catch(() => undefined);
      },
    };
  }

  /**
   * A JetStream publish (the message, then the stream's acknowledgement as the reply) on the connection's shared
   * reply inbox rather than nats.js's `js.publish`, whose request builds an Error to cancel each one that succeeded.
   * The acknowledgement is read as the library reads it: `{ stream, seq, duplicate? }`, or `{ error }`.
   */
  async publish(subject: string, payload: unknown, msgId: string, options: PublishOptions = {}): Promise<void> {
    if (!this.replies?.open) this.replies = new ReplyInbox(this.nc, inboxPrefixOf(this.nc));
    const headers = natsHeaders();
    headers.set('Nats-Msg-Id', msgId);
    let ack: { stream?: string; error?: { code?: number; description?: string } };
    try {
      ack = (await this.replies.request(subject, JSON.stringify(payload), { timeoutMs: options.ackTimeoutMs ?? PUBLISH_ACK_TIMEOUT_MS, headers })).json();
    } catch (err) {
      if (err instanceof ReplyFailed && err.kind === 'no_responders') throw new Error(`no stream takes messages on ${subject}`, { cause: err });
      throw err;
    }
    if (ack.error) throw new Error(`the stream refused the message on ${subject}: ${ack.error.description ?? 'no reason given'} (${ack.error.code ?? '?'})`);
    if (!ack.stream) throw new Error(`the stream's acknowledgement on ${subject} names no stream`);
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
      // Its delivery state (what is acknowledged) is replicated like the stream's messages: a node's loss
      // neither replays acknowledged messages nor loses track of pending ones.
      num_replicas: this.replicas,
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
    // A pull that fails — the server restarting ("server shutdown", 409), the connection down while the client
    // reconnects, a pull timing out — ends that pull, not the consumer: it is logged and the next pull starts
    // after a pause. Messages the failed pull handed out and the runner holds are settled as usual; any it did
    // not hand out come back after the ack wait. Left to propagate, the error would reject the feeder outside any
    // handler, and the process would exit on the unhandled rejection.
    const pull = (room: () => Promise<void>) =>
      (async function* () {
        let failures = 0;
        while (!stopped) {
          await room();
          if (stopped) return;
          try {
            const fetch = await consumer.fetch({ max_messages: batchSize, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS });
            current = fetch;
            let heardAt = Date.now();
            void (async () => {
              for await (const _ of fetch.status()) heardAt = Date.now();
            })().catch(() => undefined);
            const watchdog = setInterval(() => {
              if (Date.now() - heardAt <= PULL_SILENCE_MS) return;
              spec.logger?.warn({ stream: spec.stream, durable: spec.durable, silent_ms: Date.now() - heardAt }, 'a pull from the stream went silent; pulling again');
              fetch.stop();
            }, 50);
            try {
              for await (const message of fetch) {
                heardAt = Date.now();
                yield message;
              }
            } finally {
              clearInterval(watchdog);
            }
            failures = 0;
          } catch (err) {
            if (stopped) return;
            failures += 1;
            spec.logger?.error({ err, stream: spec.stream, durable: spec.durable, failures }, 'pulling from the stream failed; pulling again shortly');
            await new Promise((r) => setTimeout(r, Math.min(PULL_RETRY_MAX_MS, 100 * 2 ** Math.min(failures, 5))));
          }
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
