import { runBatches } from './batch-runner.js';
import {
  DEFAULT_ACK_WAIT_MS, type DurableConsumerSpec, type FollowedMessage, type Follower, type FollowSpec, type MessageStreams, type RunningConsumer,
  type StreamBounds, type StreamLimits, type StreamMessage,
} from './message-streams.js';
import { subjectMatches } from './subject-matching.js';

interface Stored {
  sequence: number;
  subject: string;
  payload: string;
  msgId: string;
  storedAt: number;
  /** Durable consumers that have not settled (acked or terminated) it yet. */
  unsettled: number;
}

interface InProcessStream {
  subjects: string[];
  limits: StreamLimits;
  /**
   * What the stream keeps, oldest first: trimmed to its limits on every publish; a stream without limits keeps a message
   * until every durable consumer has settled it (before the first consumer exists, everything) — in one process every
   * consumer starts with the apps, and an ever-growing copy of every call event would only cost memory.
   */
  log: Stored[];
  lastSequence: number;
  createdMs: number;
  durables: Map<string, InProcessDurable>;
  followers: Set<{ subject: string; onMessage: (message: FollowedMessage) => void }>;
  trimQueued?: boolean;
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
  private readonly streams = new Map<string, InProcessStream>();
  private readonly seenIds = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly duplicateWindowMs = 120_000) {}

  async ensureStream(stream: string, subjects: string[], limits: StreamLimits = {}): Promise<void> {
    const existing = this.streams.get(stream);
    if (!existing) this.streams.set(stream, { subjects, limits, log: [], lastSequence: 0, createdMs: Date.now(), durables: new Map(), followers: new Set() });
    else if (limits.updateMaxAge) existing.limits = { ...existing.limits, maxAgeMs: limits.maxAgeMs };
  }

  async bounds(stream: string): Promise<StreamBounds> {
    const s = this.streams.get(stream);
    if (!s) throw new Error(`stream ${stream} not found`);
    this.trim(s, Date.now());
    return { first: s.log[0]?.sequence ?? s.lastSequence + 1, last: s.lastSequence, createdMs: s.createdMs };
  }

  async follow(spec: FollowSpec, onMessage: (message: FollowedMessage) => void): Promise<Follower> {
    const s = this.streams.get(spec.stream);
    if (!s) throw new Error(`stream ${spec.stream} not found`);
    const follower = { subject: spec.subject, onMessage };
    const toFollowed = (m: Stored): FollowedMessage => ({ sequence: m.sequence, subject: m.subject, data: JSON.parse(m.payload) });
    // What is kept after the resume point is handed over first, in order, before anything newer (publish is synchronous here).
    if (spec.afterSequence !== undefined) {
      for (const m of s.log) if (m.sequence > spec.afterSequence && subjectMatches(spec.subject, m.subject)) onMessage(toFollowed(m));
    }
    s.followers.add(follower);
    return { stop: async () => void s.followers.delete(follower) };
  }

  private trim(s: InProcessStream, now: number): void {
    const { maxAgeMs, maxMessages } = s.limits;
    let drop = 0;
    if (maxAgeMs === undefined && maxMessages === undefined && s.durables.size > 0) while (drop < s.log.length && s.log[drop].unsettled === 0) drop += 1;
    if (maxMessages !== undefined && s.log.length > maxMessages) drop = s.log.length - maxMessages;
    if (maxAgeMs !== undefined) while (drop < s.log.length && now - s.log[drop].storedAt > maxAgeMs) drop += 1;
    if (drop > 0) s.log.splice(0, drop);
  }

  async publish(subject: string, payload: unknown, msgId: string): Promise<void> {
    const stream = [...this.streams.values()].find((s) => s.subjects.some((p) => subjectMatches(p, subject)));
    if (!stream) throw new Error(`no stream captures subject ${subject}`);
    const now = Date.now();
    for (const [id, at] of this.seenIds) if (now - at > this.duplicateWindowMs) this.seenIds.delete(id);
    if (this.seenIds.has(msgId)) return;
    this.seenIds.set(msgId, now);
    stream.lastSequence += 1;
    const stored: Stored = { sequence: stream.lastSequence, subject, payload: JSON.stringify(payload), msgId, storedAt: now, unsettled: stream.durables.size };
    stream.log.push(stored);
    this.trim(stream, now);
    for (const durable of stream.durables.values()) this.enqueue(durable, stored, 1);
    for (const follower of stream.followers) {
      if (subjectMatches(follower.subject, subject)) follower.onMessage({ sequence: stored.sequence, subject, data: JSON.parse(stored.payload) });
    }
  }

  async consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer> {
    await this.ensureStream(spec.stream, spec.subjects);
    const stream = this.streams.get(spec.stream)!;
    let durable = stream.durables.get(spec.durable);
    if (!durable) {
      durable = { spec, queue: stream.log.map((stored) => ({ stored, deliveryCount: 1 })) };
      for (const stored of stream.log) stored.unsettled += 1;
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
        if (redeliverAfterMs !== undefined) {
          this.later(redeliverAfterMs, () => this.enqueue(target, item.stored, item.deliveryCount + 1));
        } else {
          item.stored.unsettled -= 1;
          // Once per burst of settlements (a batch's acks), not once per message.
          if (!stream.trimQueued) {
            stream.trimQueued = true;
            queueMicrotask(() => {
              stream.trimQueued = false;
              this.trim(stream, Date.now());
            });
          }
        }
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
