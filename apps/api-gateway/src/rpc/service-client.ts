import { Inject, Injectable } from '@nestjs/common';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Headers } from '@voice/contracts';
import { isServiceError } from '@voice/service-kit';
import type { Logger } from 'pino';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
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

  async send<TReply>(subject: string, payload: unknown, options: { requestId: string; timeoutMs?: number }): Promise<TReply> {
    const timeoutMs = options.timeoutMs ?? this.settings.rpcTimeoutMs;
    const h = natsHeaders();
    h.set(Headers.requestId, options.requestId);
    const record = new NatsRecordBuilder(payload).setHeaders(h).build();
    try {
      return await firstValueFrom(this.client.send<TReply>(subject, record).pipe(timeout(timeoutMs)));
    } catch (err) {
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
    if (err instanceof Error) {
      // Raised by the transport itself: no responders, connection lost or closed.
      this.logger.warn({ subject, reason: err.message }, 'service request failed');
      return apiFailure('service_unavailable', `The ${service} is unavailable. Retry later.`);
    }
    // The service answered, but not with one of our error codes: a bug on its side, not an outage.
    this.logger.error({ subject, reply: err }, 'service answered with an unrecognised error');
    return new ApiFailure(INTERNAL_ERROR);
  }
}
