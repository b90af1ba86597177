import { runBatches } from './batch-runner.js';
import { DEFAULT_ACK_WAIT_MS, type DurableConsumerSpec, type MessageStreams, type RunningConsumer, type StreamMessage } from './message-streams.js';
import { subjectMatches } from './subject-matching.js';

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
    const ackWaitMs = spec.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
    const running = runBatches(source, spec.batchSize ?? 256, handle, (item) => {
      let settled = false;
      const settle = (redeliverAfterMs?: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(ackTimer);
        this.timers.delete(ackTimer);
        if (redeliverAfterMs !== undefined) this.later(redeliverAfterMs, () => this.enqueue(target, item.stored, item.deliveryCount + 1));
      };
      let ackTimer = this.later(ackWaitMs, () => settle(0));
      return {
        subject: item.stored.subject,
        data: JSON.parse(item.stored.payload),
        deliveryCount: item.deliveryCount,
        msgId: item.stored.msgId,
        ack: () => settle(),
        nak: (delayMs) => settle(delayMs ?? 0),
        term: () => settle(),
        working: () => {
          if (settled) return;
          clearTimeout(ackTimer);
          this.timers.delete(ackTimer);
          ackTimer = this.later(ackWaitMs, () => settle(0));
        },
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
