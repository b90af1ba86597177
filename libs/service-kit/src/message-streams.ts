import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { ensureStream } from './jetstream.js';

/** One delivered message of a durable consumer. Exactly one of ack/nak/term settles it. */
export interface StreamMessage {
  subject: string;
  /** Parsed JSON payload; undefined when the payload is not JSON. */
  data: unknown;
  /** 1 on first delivery, more on redelivery. */
  deliveryCount: number;
  ack(): void;
  /** Ask for redelivery, after `delayMs` when given. */
  nak(delayMs?: number): void;
  /** Never deliver again (poison message). */
  term(reason?: string): void;
}

export interface DurableConsumerSpec {
  stream: string;
  /** Subjects the stream captures (the stream is created if absent). */
  subjects: string[];
  durable: string;
  /** Most messages handed to one `handle` call. */
  batchSize?: number;
  /** An unsettled message is redelivered after this long. */
  ackWaitMs?: number;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * The durable streams the services use (call events in, agent events out): publish
 * with a de-duplication id, and consume through a durable consumer in batches with
 * explicit acks. JetStream in the distributed mode; an in-process stand-in when the
 * apps run in one process without NATS (no durability across restarts there —
 * PostgreSQL stays the system of record in both).
 */
export interface MessageStreams {
  ensureStream(stream: string, subjects: string[]): Promise<void>;
  /** Resolves once the message is stored (JetStream ack). */
  publish(subject: string, payload: unknown, msgId: string): Promise<void>;
  consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer>;
}

const nanos = (ms: number) => ms * 1_000_000;

/** A message that is not JSON must reach the handler (to be terminated), not stop the consumer. */
function jsonOrUndefined(m: JsMsg): unknown {
  try {
    return m.json();
  } catch {
    return undefined;
  }
}

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
      ack: () => m.ack(),
      nak: (delayMs) => m.nak(delayMs),
      // nats-server 2.9 does not parse `+TERM <reason>` and would redeliver; the caller logs the reason.
      term: () => m.term(),
    }), () => messages.stop());
  }
}

/**
 * Feed a message source into `handle` in batches. Messages that arrive while a
 * batch is being handled form the next batch; the source is not read further
 * while two batches are waiting, which bounds memory.
 */
function runBatches<M>(
  source: AsyncIterable<M>,
  batchSize: number,
  handle: (batch: StreamMessage[]) => Promise<void>,
  wrap: (m: M) => StreamMessage,
  stopSource: () => void,
): RunningConsumer {
  const buffer: StreamMessage[] = [];
  let stopped = false;
  let wakeWorker: (() => void) | undefined;
  let wakeFeeder: (() => void) | undefined;

  const feeder = (async () => {
    for await (const m of source) {
      buffer.push(wrap(m));
      wakeWorker?.();
      while (buffer.length >= batchSize * 2 && !stopped) await new Promise<void>((r) => (wakeFeeder = r));
      if (stopped) break;
    }
  })();

  const worker = (async () => {
    while (!stopped) {
      if (buffer.length === 0) {
        await new Promise<void>((r) => (wakeWorker = r));
        continue;
      }
      const batch = buffer.splice(0, batchSize);
      wakeFeeder?.();
      try {
        await handle(batch);
      } catch {
        // The handler failed as a whole: let every message of the batch come back.
        for (const m of batch) m.nak(1_000);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      stopSource();
      wakeWorker?.();
      wakeFeeder?.();
      await worker;
      await feeder.catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------

/** NATS subject matching with `*` (one token) and `>` (the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

interface Stored {
  subject: string;
  payload: string;
}

interface InProcessDurable {
  spec: DurableConsumerSpec;
  queue: Array<{ stored: Stored; deliveryCount: number }>;
  wake?: () => void;
}

/**
 * In-process stand-in for JetStream with the same semantics the services rely on:
 * msg-id de-duplication within a window, durable consumers that see every message
 * published to their stream (also those published before they started), explicit
 * acks, nak with delay, redelivery after ack wait, term. Nothing survives a restart.
 */
export class InProcessStreams implements MessageStreams {
  private readonly streams = new Map<string, { subjects: string[]; log: Stored[]; durables: Map<string, InProcessDurable> }>();
  private readonly seenIds = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly duplicateWindowMs = 120_000) {}

  async ensureStream(stream: string, subjects: string[]): Promise<void> {
    if (!this.streams.has(stream)) this.streams.set(stream, { subjects, log: [], durables: new Map() });
  }

  async publish(subject: string, payload: unknown, msgId: string): Promise<void> {
    const stream = [...this.streams.values()].find((s) => s.subjects.some((p) => subjectMatches(p, subject)));
    if (!stream) throw new Error(`no stream captures subject ${subject}`);
    const now = Date.now();
    for (const [id, at] of this.seenIds) if (now - at > this.duplicateWindowMs) this.seenIds.delete(id);
    if (this.seenIds.has(msgId)) return;
    this.seenIds.set(msgId, now);
    const stored = { subject, payload: JSON.stringify(payload) };
    stream.log.push(stored);
    for (const durable of stream.durables.values()) this.enqueue(durable, stored, 1);
  }

  async consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer> {
    await this.ensureStream(spec.stream, spec.subjects);
    const stream = this.streams.get(spec.stream)!;
    let durable = stream.durables.get(spec.durable);
    if (!durable) {
      durable = { spec, queue: stream.log.map((stored) => ({ stored, deliveryCount: 1 })) };
      stream.durables.set(spec.durable, durable);
    }
    const target = durable;
    const source: AsyncIterable<{ stored: Stored; deliveryCount: number }> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          while (target.queue.length === 0 && !closed) await new Promise<void>((r) => (target.wake = r));
          if (closed) return { done: true, value: undefined };
          return { done: false, value: target.queue.shift()! };
        },
      }),
    };
    let closed = false;
    const ackWaitMs = spec.ackWaitMs ?? 30_000;
    const running = runBatches(source, spec.batchSize ?? 256, handle, (item) => {
      let settled = false;
      const settle = (redeliverAfterMs?: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(ackTimer);
        this.timers.delete(ackTimer);
        if (redeliverAfterMs !== undefined) this.later(redeliverAfterMs, () => this.enqueue(target, item.stored, item.deliveryCount + 1));
      };
      const ackTimer = this.later(ackWaitMs, () => settle(0));
      return {
        subject: item.stored.subject,
        data: JSON.parse(item.stored.payload),
        deliveryCount: item.deliveryCount,
        ack: () => settle(),
        nak: (delayMs) => settle(delayMs ?? 0),
        term: () => settle(),
      };
    }, () => {
      closed = true;
      target.wake?.();
    });
    return {
      stop: async () => {
        await running.stop();
        for (const t of this.timers) clearTimeout(t);
        this.timers.clear();
      },
    };
  }

  private enqueue(durable: InProcessDurable, stored: Stored, deliveryCount: number): void {
    durable.queue.push({ stored, deliveryCount });
    durable.wake?.();
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
    return timer;
  }
}
