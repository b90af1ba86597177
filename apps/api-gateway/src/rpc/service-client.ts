import { Inject, Injectable } from '@nestjs/common';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Headers } from '@voice/contracts';
import { isServiceError } from '@voice/service-kit';
import type { Logger } from 'pino';
import { firstValueFrom, ReplaySubject, take, timeout, TimeoutError } from 'rxjs';
import { apiFailure, ApiFailure, INTERNAL_ERROR } from '../http/api-failure.js';
import { GATEWAY_SETTINGS, LOGGER, RPC_CLIENT, type GatewaySettings, type RpcSender } from '../tokens.js';

/**
 * Request-reply to the services. Every call is bounded by a timeout: a service
 * that is down, slow or unreachable becomes 503 service_unavailable instead of
 * a hanging HTTP request; structured service errors pass through unchanged.
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
    const h = natsHeaders();
    h.set(Headers.requestId, options.requestId);
    const record = new NatsRecordBuilder(payload).setHeaders(h).build();
    if (options.lateReply) return this.sendKeepingLateReply(subject, record, timeoutMs, options.lateReply);
    try {
      return await firstValueFrom(this.client.send<TReply>(subject, record).pipe(timeout(timeoutMs)));
    } catch (err) {
      throw this.toFailure(err, subject, timeoutMs);
    }
  }

  /**
   * Like send, but a timeout does not drop the request: the reply is still awaited (up to `lateReply.waitMs`)
   * and handed to `lateReply.take` as a promise, rejecting with the failure the reply would have been.
   */
  private async sendKeepingLateReply<TReply>(subject: string, record: unknown, timeoutMs: number, lateReply: LateReply<TReply>): Promise<TReply> {
    const reply = new ReplaySubject<TReply>(1);
    const subscription = this.client.send<TReply>(subject, record).pipe(take(1)).subscribe(reply);
    try {
      const answer = await firstValueFrom(reply.pipe(timeout(timeoutMs)));
      subscription.unsubscribe();
      return answer;
    } catch (err) {
      if (err instanceof TimeoutError) {
        const late = firstValueFrom(reply.pipe(timeout(lateReply.waitMs)))
          .catch((lateErr: unknown) => {
            throw this.toFailure(lateErr, subject, timeoutMs + lateReply.waitMs);
          })
          .finally(() => subscription.unsubscribe());
        late.catch(() => undefined);
        lateReply.take(late);
      } else {
        subscription.unsubscribe();
      }
      throw this.toFailure(err, subject, timeoutMs);
    }
  }

  private toFailure(err: unknown, subject: string, timeoutMs: number): ApiFailure {
    if (isServiceError(err)) return new ApiFailure(err);
    const service = `${subject.split('.')[0]} service`;
    if (err instanceof TimeoutError) {
      this.logger.warn({ subject, timeout_ms: timeoutMs }, 'service did not answer in time');
      return apiFailure('service_unavailable', `The ${service} did not answer within ${timeoutMs} ms. Retry later.`);
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

/** What a caller does with the reply of a request it already answered 503 because the reply was late. */
export interface LateReply<TReply> {
  waitMs: number;
  take(late: Promise<TReply>): void;
}

export interface SendOptions<TReply> {
  requestId: string;
  timeoutMs?: number;
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
