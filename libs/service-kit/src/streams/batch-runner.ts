/**
 * The batch runner under both stream adapters, and its rules for a batch whose handler
 * throws (the failure is classified by pg-errors' classifyFailure):
 *
 * - An outage or a lost race (`isTransientFailure`, or the consumer's own test) says
 *   nothing about the messages: the batch's unsettled messages are nak-ed with a backoff
 *   (transientRetryDelay) and come back later.
 * - Otherwise the unsettled messages are handed over again one at a time. A message that
 *   fails on its own with a data fault (SQLSTATE class 22, 23, 54 or P0) is terminated as
 *   a poison message and logged: the same write fails the same way every time, and
 *   retrying it forever would block its stream.
 * - A message that fails on its own with an error that is not a database error (a defect
 *   in the handler's code that only its data triggers) is terminated only when another
 *   message of the batch succeeded on its own. When none succeeds on its own and none
 *   fails with a data fault, nothing is the messages' fault: it is an outage, logged
 *   once, and every unsettled message is nak-ed with the backoff.
 * - Any other database error (a missing table, a permission, an internal error) is never
 *   a reason to terminate a message: it is redelivered, since a later attempt (after a
 *   fix) may get past it.
 * - A message that becomes transient while retried alone stops the one-at-a-time retry:
 *   it and the unsettled rest of its batch are nak-ed with the backoff.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { createLogger } from '../logging/logging.js';
import { isDatabaseFailure, isDataFailure, isTransientFailure } from '../database/pg-errors.js';
import { DEFAULT_ACK_WAIT_MS, type DurableConsumerSpec, type RunningConsumer, type StreamMessage } from './message-streams.js';

/** Redelivery delay after a transient failure: 1 s, doubling per delivery, at most 30 s. */
export function transientRetryDelay(deliveryCount: number): number {
  return Math.min(1_000 * 2 ** Math.min(Math.max(deliveryCount - 1, 0), 5), 30_000);
}

let fallbackLogger: Logger | undefined;
const defaultLogger = () => (fallbackLogger ??= createLogger('message-streams'));

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
  /** The message as the runner holds it (what `held` knows). */
  holder: StreamMessage;
}

function track(message: StreamMessage): Tracked {
  const tracked: Tracked = {
    settled: false,
    holder: message,
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
 * while two batches per worker are waiting, which bounds memory. With
 * `spec.concurrency` above 1, that many batches are handled at once (by key
 * partition when `spec.partitionKey` is given). A batch whose handler throws is
 * never dropped silently: see the rules at the top of this file.
 *
 * `source` is an iterable, or a function that makes one given `room()`, a promise
 * that resolves when a whole batch more fits: a source that pulls from a server
 * awaits it before each pull, so every message the server handed out is in this
 * runner's hands (and kept alive with `working`) rather than in a client buffer.
 */
export function runBatches<M>(
  source: AsyncIterable<M> | ((room: () => Promise<void>) => AsyncIterable<M>),
  batchSize: number,
  handle: (batch: StreamMessage[]) => Promise<void>,
  wrap: (m: M) => StreamMessage,
  stopSource: () => void,
  spec: Pick<DurableConsumerSpec, 'stream' | 'durable' | 'logger' | 'isTransientFailure' | 'ackWaitMs' | 'concurrency' | 'partitionKey'>,
): RunningConsumer {
  // One queue per worker: a message goes to its partition's worker (any worker's when there is one queue).
  const workerCount = Math.max(1, spec.concurrency ?? 1);
  const queues: StreamMessage[][] = Array.from({ length: spec.partitionKey ? workerCount : 1 }, () => []);
  const partitionOf = (message: StreamMessage): StreamMessage[] =>
    queues.length === 1 ? queues[0] : queues[createHash('md5').update(spec.partitionKey!(message)).digest().readUInt32BE(0) % queues.length];
  let buffered = 0;
  // Room for a pull while fewer than a batch per worker wait.
  const bufferLimit = batchSize * workerCount;
  // Every message received and not yet settled, buffered or in a batch: its ack wait is restarted every half of
  // it, so a short ack wait (a dead consumer's messages come back in seconds) never redelivers a message a live
  // consumer is still holding behind a slow batch.
  const held = new Set<StreamMessage>();
  const hold = (message: StreamMessage): StreamMessage => {
    const holder: StreamMessage = {
      ...message,
      ack: () => {
        held.delete(holder);
        message.ack();
      },
      nak: (delayMs) => {
        held.delete(holder);
        message.nak(delayMs);
      },
      term: (reason) => {
        held.delete(holder);
        message.term(reason);
      },
    };
    held.add(holder);
    return holder;
  };
  const progress = setInterval(() => {
    for (const message of held) message.working?.();
  }, Math.max(100, Math.floor((spec.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) / 2)));
  progress.unref();
  let stopped = false;
  /** Workers waiting for messages, by queue. */
  const idle = queues.map((): Array<() => void> => []);
  const wakeWorkers = () => {
    for (const waiting of idle) for (const wake of waiting.splice(0)) wake();
  };
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

  const room = async () => {
    while (buffered >= bufferLimit && !stopped) await new Promise<void>((r) => (wakeFeeder = r));
  };
  const pulled = typeof source === 'function';
  const messages = typeof source === 'function' ? source(room) : source;
  const feeder = (async () => {
    for await (const m of messages) {
      const message = hold(wrap(m));
      const queue = partitionOf(message);
      queue.push(message);
      buffered += 1;
      idle[queues.indexOf(queue)].shift()?.();
      // A pulling source waits for room itself, between pulls: pausing inside a pull would leave its rest unseen.
      while (!pulled && buffered >= bufferLimit * 2 && !stopped) await new Promise<void>((r) => (wakeFeeder = r));
      if (stopped) break;
    }
  })();

  // `concurrency` workers, each taking batches from its queue (or all from the one queue); each settles (or recovers) its own.
  const work = async (worker: number) => {
    const q = worker % queues.length;
    const queue = queues[q];
    while (!stopped) {
      if (queue.length === 0) {
        await new Promise<void>((r) => idle[q].push(r));
        continue;
      }
      const batch = queue.splice(0, batchSize).map(track);
      buffered -= batch.length;
      wakeFeeder?.();
      try {
        await handle(batch.map((t) => t.message));
      } catch (err) {
        await recover(batch, err).catch((failure: unknown) => {
          // Only a throwing logger or settle call gets here; the unsettled messages come back after ack wait.
          logger.error({ err: failure, ...where }, 'recovering a failed batch failed');
        });
      }
      // A message its batch left unsettled is no longer worked on: it stops being kept alive and comes back after the ack wait.
      for (const t of batch) if (!t.settled) held.delete(t.holder);
    }
  };
  const workers = Promise.all(Array.from({ length: workerCount }, (_, worker) => work(worker)));

  return {
    async stop() {
      stopped = true;
      clearInterval(progress);
      stopSource();
      wakeWorkers();
      wakeFeeder?.();
      await workers;
      await feeder.catch(() => undefined);
    },
  };
}
