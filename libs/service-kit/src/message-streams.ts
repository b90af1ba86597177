import {
  AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { ensureStream } from './jetstream.js';
import { createLogger } from './logging.js';
import { isDatabaseFailure, isDataFailure, isTransientFailure } from './pg-errors.js';

/** One delivered message of a durable consumer. Exactly one of ack/nak/term settles it. */
export interface StreamMessage {
  subject: string;
  /** Parsed JSON payload; undefined when the payload is not JSON. */
  data: unknown;
  /** 1 on first delivery, more on redelivery. */
  deliveryCount: number;
  /** The publisher's de-duplication id (Nats-Msg-Id; the event id for call events), when it set one. */
  msgId?: string;
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
  /** Where failed batches and terminated poison messages are reported (error level). Defaults to a service-kit logger. */
  logger?: Pick<Logger, 'error'>;
  /**
   * True for a failure that says nothing about the messages (the database is unreachable,
   * out of disk or memory, read-only, a deadlock, a serialization failure): the batch is
   * redelivered later instead of being split up to find a poison message. Defaults to
   * `isTransientFailure`.
   */
  isTransientFailure?: (err: unknown) => boolean;
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
  /**
   * Hand batches of messages to `handle`, which settles each one. When `handle` throws,
   * the failure is logged and, unless it is transient (then the batch's unsettled messages
   * are nak-ed with a backoff), they are handed over again one at a time. A message that
   * still fails on its own is terminated as a poison message (and logged) only when the
   * failure plausibly comes from its data: a PostgreSQL data exception, integrity
   * constraint violation or program limit (SQLSTATE class 22, 23, 54), or an error that is
   * not a database error while another message of the batch succeeded on its own. When no
   * message succeeds on its own and no failure is a data error, nothing is the messages'
   * fault: it is an outage, logged once, and every unsettled message is nak-ed with the
   * backoff. A database error of any other kind is never a reason to terminate a message.
   */
  consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer>;
}

/** Redelivery delay after a transient failure: 1 s, doubling per delivery, at most 30 s. */
export function transientRetryDelay(deliveryCount: number): number {
  return Math.min(1_000 * 2 ** Math.min(Math.max(deliveryCount - 1, 0), 5), 30_000);
}

let fallbackLogger: Logger | undefined;
const defaultLogger = () => (fallbackLogger ??= createLogger('message-streams'));

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
      msgId: m.headers?.get('Nats-Msg-Id') || undefined,
      ack: () => m.ack(),
      nak: (delayMs) => m.nak(delayMs),
      // nats-server 2.9 does not parse `+TERM <reason>` and would redeliver; the caller logs the reason.
      term: () => m.term(),
    }), () => messages.stop(), spec);
  }
}

/** The `id` (or `event_id`) of an event payload, for logs; null when it has none. */
function payloadId(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  const { id, event_id: eventId } = data as { id?: unknown; event_id?: unknown };
  return typeof id === 'string' ? id : typeof eventId === 'string' ? eventId : null;
}

/** A message whose settlement is seen, so a failed handler's unsettled messages are known. */
interface Tracked {
  message: StreamMessage;
  settled: boolean;
}

function track(message: StreamMessage): Tracked {
  const tracked: Tracked = {
    settled: false,
    message: {
      subject: message.subject,
      data: message.data,
      deliveryCount: message.deliveryCount,
      ...(message.msgId !== undefined ? { msgId: message.msgId } : {}),
      ack: () => {
        tracked.settled = true;
        message.ack();
      },
      nak: (delayMs) => {
        tracked.settled = true;
        message.nak(delayMs);
      },
      term: (reason) => {
        tracked.settled = true;
        message.term(reason);
      },
    },
  };
  return tracked;
}

/**
 * Feed a message source into `handle` in batches. Messages that arrive while a
 * batch is being handled form the next batch; the source is not read further
 * while two batches are waiting, which bounds memory. A batch whose handler
 * throws is never dropped silently: see MessageStreams.consume.
 */
function runBatches<M>(
  source: AsyncIterable<M>,
  batchSize: number,
  handle: (batch: StreamMessage[]) => Promise<void>,
  wrap: (m: M) => StreamMessage,
  stopSource: () => void,
  spec: Pick<DurableConsumerSpec, 'stream' | 'durable' | 'logger' | 'isTransientFailure'>,
): RunningConsumer {
  const buffer: StreamMessage[] = [];
  let stopped = false;
  let wakeWorker: (() => void) | undefined;
  let wakeFeeder: (() => void) | undefined;
  const logger = spec.logger ?? defaultLogger();
  const isTransient = spec.isTransientFailure ?? isTransientFailure;
  const where = { stream: spec.stream, durable: spec.durable };
  const describe = (m: StreamMessage) => ({ ...where, subject: m.subject, msg_id: m.msgId ?? null, event_id: payloadId(m.data), delivery: m.deliveryCount });

  /** The handler threw for a whole batch: find the message(s) that cause it, if any, and settle every message. */
  const recover = async (batch: Tracked[], err: unknown) => {
    const unsettled = batch.filter((t) => !t.settled).map((t) => t.message);
    const backoff = (messages: StreamMessage[]) => transientRetryDelay(Math.max(1, ...messages.map((m) => m.deliveryCount)));
    if (isTransient(err)) {
      const delayMs = backoff(unsettled);
      logger.error({ err, ...where, messages: batch.length, unsettled: unsettled.length, retry_in_ms: delayMs }, 'batch handler failed (transient); its messages will be redelivered');
      for (const m of unsettled) m.nak(delayMs);
      return;
    }
    logger.error({ err, ...where, messages: batch.length, unsettled: unsettled.length }, 'batch handler failed; retrying its messages one at a time');
    let succeededAlone = 0;
    /** Failed on their own, but not with a data error: settled once every message has been tried. */
    const undecided: Array<{ message: StreamMessage; err: unknown }> = [];
    for (let i = 0; i < unsettled.length; i++) {
      const message = unsettled[i];
      if (stopped) {
        message.nak();
        continue;
      }
      const alone = track(message);
      try {
        await handle([alone.message]);
        succeededAlone += 1;
      } catch (errAlone) {
        if (alone.settled) {
          logger.error({ err: errAlone, ...describe(message) }, 'handler failed after settling the message');
        } else if (isTransient(errAlone)) {
          // The database became unavailable meanwhile: the rest would fail the same way, and nothing is their fault.
          const waiting = [message, ...undecided.map((u) => u.message), ...unsettled.slice(i + 1)];
          const delayMs = backoff(waiting);
          logger.error({ err: errAlone, ...describe(message), unsettled: waiting.length, retry_in_ms: delayMs }, 'message failed on its own (transient); it and the unsettled rest of its batch will be redelivered');
          for (const m of waiting) m.nak(delayMs);
          return;
        } else if (isDataFailure(errAlone)) {
          logger.error({ err: errAlone, ...describe(message) }, 'poison message: it fails on its own with a data error; terminated, it will not be redelivered');
          alone.message.term(errAlone instanceof Error ? errAlone.message : String(errAlone));
        } else {
          undecided.push({ message, err: errAlone });
        }
      }
    }
    if (undecided.length === 0) return;
    if (succeededAlone === 0) {
      // Every message fails, none with a data error: the handler or the database is failing, not the messages.
      const delayMs = backoff(undecided.map((u) => u.message));
      logger.error(
        { err: undecided[0].err, ...where, messages: batch.length, unsettled: undecided.length, retry_in_ms: delayMs },
        'outage: no message of the failed batch succeeds on its own and none fails with a data error; none is terminated, they will be redelivered',
      );
      for (const { message } of undecided) message.nak(delayMs);
      return;
    }
    for (const { message, err: errAlone } of undecided) {
      if (isDatabaseFailure(errAlone)) {
        // Not a data error (a missing table, a permission, an internal error…): a later attempt may get past it.
        const delayMs = transientRetryDelay(message.deliveryCount);
        logger.error({ err: errAlone, ...describe(message), retry_in_ms: delayMs }, 'message failed on its own with a database error that is not a data error; it will be redelivered');
        message.nak(delayMs);
      } else {
        logger.error({ err: errAlone, ...describe(message) }, 'poison message: it fails on its own while others of its batch succeed; terminated, it will not be redelivered');
        message.term(errAlone instanceof Error ? errAlone.message : String(errAlone));
      }
    }
  };

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
      const batch = buffer.splice(0, batchSize).map(track);
      wakeFeeder?.();
      try {
        await handle(batch.map((t) => t.message));
      } catch (err) {
        await recover(batch, err).catch((failure: unknown) => {
          // Only a throwing logger or settle call gets here; the unsettled messages come back after ack wait.
          logger.error({ err: failure, ...where }, 'recovering a failed batch failed');
        });
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
  msgId: string;
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
    const stored = { subject, payload: JSON.stringify(payload), msgId };
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
        msgId: item.stored.msgId,
        ack: () => settle(),
        nak: (delayMs) => settle(delayMs ?? 0),
        term: () => settle(),
      };
    }, () => {
      closed = true;
      target.wake?.();
    }, spec);
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
