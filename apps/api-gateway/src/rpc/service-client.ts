import { Inject, Injectable } from '@nestjs/common';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Headers } from '@voice/contracts';
import { isProgressSignal, isServiceError } from '@voice/service-kit';
import type { Logger } from 'pino';
import { EmptyError, type Observable } from 'rxjs';
import { apiFailure, ApiFailure, INTERNAL_ERROR } from '../http/api-failure.js';
import { GATEWAY_SETTINGS, LOGGER, RPC_CLIENT, type GatewaySettings, type RpcSender } from '../tokens.js';
import { expiryReason, fixedWait, lateReplyDeadline, progressWait, replyDeadline, type ReplyWait } from './reply-wait.rules.js';

/**
 * Request-reply to the services. Every call is bounded: a service that is down,
 * slow or unreachable becomes 503 service_unavailable instead of a hanging HTTP
 * request; structured service errors pass through unchanged. A call whose
 * handler reports progress is waited for while the signals come (up to its
 * bound), so a dead service shows within seconds and a slow live one is not cut off.
 */
@Injectable()
export class ServiceClient {
  constructor(
    @Inject(RPC_CLIENT) private readonly client: RpcSender,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async send<TReply>(subject: string, payload: unknown, options: SendOptions<TReply>): Promise<TReply> {
    const timeoutMs = options.timeoutMs ?? this.settings.rpcTimeoutMs;
    const wait = options.reportsProgress ? progressWait(Math.min(this.settings.rpcTimeoutMs, timeoutMs), timeoutMs) : fixedWait(timeoutMs);
    const h = natsHeaders();
    h.set(Headers.requestId, options.requestId);
    if (options.actor?.keyId) h.set(Headers.actorKeyId, options.actor.keyId);
    if (options.actor?.clientAddress) h.set(Headers.clientAddress, options.actor.clientAddress);
    const record = new NatsRecordBuilder(payload).setHeaders(h).build();
    let watch: ReplyWatch<TReply>;
    try {
      watch = watchReplies<TReply>(this.client.send<unknown>(subject, record), wait);
    } catch (err) {
      throw this.toFailure(err, subject);
    }
    try {
      const answer = await watch.answer;
      watch.stop();
      return answer;
    } catch (err) {
      if (err instanceof NoAnswerInTime && options.lateReply) {
        // A timeout does not drop the request: its reply is still awaited and handed over as a promise,
        // rejecting with the failure the reply would have been.
        const late = watch.answerWithin(options.lateReply.waitMs).catch((lateErr: unknown) => {
          throw this.toFailure(lateErr, subject);
        });
        late.catch(() => undefined);
        options.lateReply.take(late);
      } else {
        watch.stop();
      }
      throw this.toFailure(err, subject);
    }
  }

  private toFailure(err: unknown, subject: string): ApiFailure {
    if (isServiceError(err)) return new ApiFailure(err);
    const service = `${subject.split('.')[0]} service`;
    if (err instanceof NoAnswerInTime) {
      this.logger.warn({ subject, waited_ms: err.waitedMs, reason: err.reason }, 'service did not answer in time');
      return apiFailure(
        'service_unavailable',
        err.reason === 'went_silent'
          ? `The ${service} stopped reporting progress on this request (no sign of life for ${err.silentMs} ms). Retry later.`
          : `The ${service} did not answer within ${err.waitedMs} ms. Retry later.`,
      );
    }
    switch (classifyTransportError(err)) {
      case 'unavailable':
        this.logger.warn({ subject, reason: (err as Error).message }, 'service request failed');
        return apiFailure('service_unavailable', `The ${service} is unavailable. Retry later.`);
      case 'too_large':
        return apiFailure('payload_too_large', 'The request is larger than the message bus carries (about 1 MiB including its envelope).');
      default:
        // The service answered with something that is not one of our error codes, or the request could not
        // even be serialized: a bug on our side, not an outage — a retry would not help.
        this.logger.error({ subject, err }, 'service request failed unexpectedly');
        return new ApiFailure(INTERNAL_ERROR);
    }
  }
}

/** The wait for an answer ended without one. */
export class NoAnswerInTime extends Error {
  constructor(
    readonly waitedMs: number,
    readonly reason: 'no_answer' | 'went_silent',
    readonly silentMs: number,
  ) {
    super(reason === 'went_silent' ? `no progress signal for ${silentMs} ms` : `no answer within ${waitedMs} ms`);
    this.name = 'NoAnswerInTime';
  }
}

export interface ReplyWatch<T> {
  /** The answer; rejects with the service's error, a transport error, or NoAnswerInTime when the wait ends. */
  answer: Promise<T>;
  /** After the wait ended: the answer if it comes within `ms` more (and, for a reporting request, while it signals); then stops. */
  answerWithin(ms: number): Promise<T>;
  stop(): void;
}

/**
 * Follows the replies of one request: progress signals move the deadline as `wait` says; the first other
 * value is the answer. The stream's own outcome stays observable after the deadline (for a late reply).
 */
export function watchReplies<T>(replies: Observable<unknown>, wait: ReplyWait, now: () => number = Date.now): ReplyWatch<T> {
  const startedAt = now();
  let lastSignalAt: number | undefined;
  let deadline = () => replyDeadline(wait, startedAt, lastSignalAt);
  let expired: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => expired(), Math.max(0, deadline() - now()));
  };
  const noAnswer = () =>
    new NoAnswerInTime(now() - startedAt, expiryReason(wait, startedAt, lastSignalAt), now() - (lastSignalAt ?? startedAt));
  let stopStream: () => void = () => undefined;
  let answered = false;
  const outcome = new Promise<T>((resolve, reject) => {
    const subscription = replies.subscribe({
      next: (value) => {
        if (!isProgressSignal(value)) {
          answered = true;
          return resolve(value as T);
        }
        lastSignalAt = now();
        arm();
      },
      error: reject,
      // Every answered request completes too: an EmptyError (its stack trace captured) only for one that never answered.
      complete: () => {
        if (!answered) reject(new EmptyError());
      },
    });
    stopStream = () => subscription.unsubscribe();
  });
  outcome.catch(() => undefined);
  const stop = () => {
    clearTimeout(timer);
    stopStream();
  };
  const answer = new Promise<T>((resolve, reject) => {
    expired = () => reject(noAnswer());
    outcome.then(resolve, reject);
    arm();
  }).finally(() => clearTimeout(timer));
  return {
    answer,
    answerWithin(ms) {
      const lateStartedAt = now();
      return new Promise<T>((resolve, reject) => {
        deadline = () => lateReplyDeadline(wait, lateStartedAt, ms, lastSignalAt);
        expired = () => reject(noAnswer());
        outcome.then(resolve, reject);
        arm();
      }).finally(stop);
    },
    stop,
  };
}

/** The API key and client address of a request, as a service keeps them in the metadata of what it records. */
export interface RequestActor {
  keyId?: string;
  clientAddress?: string;
}

/** What a caller does with the reply of a request it already answered 503 because the reply was late. */
export interface LateReply<TReply> {
  waitMs: number;
  take(late: Promise<TReply>): void;
}

export interface SendOptions<TReply> {
  requestId: string;
  /** Who asks, carried to a service whose events the audit log reads (see actorOf). */
  actor?: RequestActor;
  /** The absolute bound (RPC_TIMEOUT_MS when absent). */
  timeoutMs?: number;
  /**
   * The handler sends progress signals while it works (ProgressInterceptor): wait RPC_TIMEOUT_MS for the
   * first, then as long as they keep coming, up to `timeoutMs`.
   */
  reportsProgress?: boolean;
  lateReply?: LateReply<TReply>;
}

/** Errors the NATS client (and Nest's transport over it) raise when the bus or every responder is gone. */
const UNAVAILABLE_ERRORS = new Set([
  'ClosedConnectionError',
  'DrainingConnectionError',
  'ConnectionError',
  'NoResponders',
  'NoRespondersError',
  'RequestError',
  'ProtocolError',
]);

export function classifyTransportError(err: unknown): 'unavailable' | 'too_large' | 'other' {
  // While NATS is unreachable Nest's client rejects with this string (not an Error) until it reconnects.
  if (typeof err === 'string') return /Connection (lost|closed)|Trying to reconnect/i.test(err) ? 'unavailable' : 'other';
  if (!(err instanceof Error)) return 'other';
  if (err.name === 'InvalidArgumentError' && /max_payload/.test(err.message)) return 'too_large';
  if (UNAVAILABLE_ERRORS.has(err.name)) return 'unavailable';
  // Nest's NATS client: "Connection closed" fails pending requests when its connection closes; "Empty
  // response" is the server's no-responders status (EmptyResponseException, which Nest does not export).
  if (err.message === 'Connection closed' || err.message.startsWith('Empty response.')) return 'unavailable';
  return 'other';
}
