import type { Logger } from 'pino';

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
  /** Still being worked on: restart its ack wait (JetStream's in-progress ack) so it is not redelivered meanwhile. */
  working?(): void;
}

/** A consumer that stops signalling progress has its messages redelivered after this long. */
export const DEFAULT_ACK_WAIT_MS = 5_000;

export interface DurableConsumerSpec {
  stream: string;
  /** Subjects the stream captures (the stream is created if absent). */
  subjects: string[];
  durable: string;
  /** Most messages handed to one `handle` call. */
  batchSize?: number;
  /**
   * Batches handled at once (default 1: one after the other), each by its own worker, so the database works on one
   * while another waits on its round trips. Messages with the same `partitionKey` always go to the same worker, in
   * delivery order: two batches at once then never wait on each other's locks for the same key. Only for a handler
   * whose batches of different keys may commit in any order.
   */
  concurrency?: number;
  /** What keeps messages together on one worker when `concurrency` is above 1 (e.g. the conversation). */
  partitionKey?: (message: StreamMessage) => string;
  /**
   * An unsettled message is redelivered after this long — once its consumer stopped signalling progress: the
   * consumer signals it (`working`) every half of it for every message it holds, so only the messages of a
   * consumer that died come back, and soon.
   */
  ackWaitMs?: number;
  /**
   * Where failed batches and terminated poison messages are reported (error level), and pulls restarted after going
   * silent (warn). Defaults to a service-kit logger.
   */
  logger?: Pick<Logger, 'error' | 'warn'>;
  /**
   * True for a failure that says nothing about the messages: the batch is redelivered
   * later instead of being split up to find a poison message. Defaults to
   * `isTransientFailure` (an outage or a lost race).
   */
  isTransientFailure?: (err: unknown) => boolean;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** How much a stream keeps: the bus drops the oldest messages past either bound. Unbounded when absent. */
export interface StreamLimits {
  maxAgeMs?: number;
  maxMessages?: number;
  /**
   * An existing stream with another max age is changed to maxAgeMs (otherwise an existing stream keeps its
   * configuration). Needs the stream's UPDATE permission; refused, ensureStream throws StreamUpdateRefused
   * after making sure the stream exists.
   */
  updateMaxAge?: boolean;
}

/** Where a stream's kept messages start and end (sequences; `first` is `last + 1` when it keeps none). */
export interface StreamBounds {
  first: number;
  last: number;
  /**
   * When the stream was created (ms since the epoch). Sequences start again at 1 in a stream created anew (a bus
   * reset, a one-process restart): a position is only meaningful together with it.
   */
  createdMs: number;
}

/** One message read by a follower: its position in the stream (1, 2, …; never reused) and its parsed payload. */
export interface FollowedMessage {
  sequence: number;
  subject: string;
  data: unknown;
}

export interface FollowSpec {
  stream: string;
  /** Only messages on this subject (wildcards allowed). */
  subject: string;
  /** Start after this sequence (a resume); absent: only messages stored from now on. */
  afterSequence?: number;
}

export interface PublishOptions {
  ackTimeoutMs?: number;
}

export interface Follower {
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
  /** Creates the stream when absent (an existing stream keeps its configuration). */
  ensureStream(stream: string, subjects: string[], limits?: StreamLimits): Promise<void>;
  /**
   * Resolves once the message is stored (JetStream ack). `ackTimeoutMs` is how long to wait for the
   * acknowledgement (5 s unless the caller has a deadline of its own, such as an HTTP request's).
   */
  publish(subject: string, payload: unknown, msgId: string, options?: PublishOptions): Promise<void>;
  /**
   * Hand batches of messages to `handle`, which settles each one. A batch whose handler
   * throws is never dropped silently: each of its unsettled messages is either redelivered
   * or, when it fails on its own through its own fault, terminated and logged as a poison
   * message (batch-runner.ts holds the rules).
   */
  consume(spec: DurableConsumerSpec, handle: (batch: StreamMessage[]) => Promise<void>): Promise<RunningConsumer>;
  /** The sequences the stream keeps now. */
  bounds(stream: string): Promise<StreamBounds>;
  /**
   * Read a stream's messages in order without acknowledging anything and without leaving state behind
   * (an ephemeral, ordered reader, as many as wanted): each goes to `onMessage` in stream order.
   * `onMessage` must not throw.
   */
  follow(spec: FollowSpec, onMessage: (message: FollowedMessage) => void): Promise<Follower>;
}
