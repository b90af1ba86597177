import { Injectable, Optional, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Logger } from 'pino';
import { ClientNats, ServerNats, type NatsOptions } from '@nestjs/microservices';
import { Headers, namespacedSubject } from '@voice/contracts';
import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import { requestContext } from './logging.js';

type NatsTransportOptions = NonNullable<NatsOptions['options']>;

/**
 * Nest's NATS transport with every subject prefixed by the deployment namespace.
 * Handlers keep their plain contract subjects (`agents.create`) while the wire
 * subject is `<ns>.agents.create`.
 */
export class NamespacedNatsServer extends ServerNats {
  constructor(private readonly namespace: string, options: NatsTransportOptions) {
    super(options);
  }
  // Prefix once, where handlers are registered: the server re-normalizes the
  // incoming subject to look the handler up, so normalizePattern must stay as is.
  override addHandler(pattern: unknown, ...rest: Parameters<ServerNats['addHandler']> extends [unknown, ...infer R] ? R : never): void {
    super.addHandler(namespacedSubject(this.namespace, this.normalizePattern(pattern as string)), ...rest);
  }
}

export class NamespacedNatsClient extends ClientNats {
  constructor(private readonly namespace: string, options: NatsTransportOptions) {
    super(options);
  }
  protected override normalizePattern(pattern: unknown): string {
    return namespacedSubject(this.namespace, super.normalizePattern(pattern as string));
  }
}

/**
 * Options for a service's request-reply server. The queue group makes replicas
 * of one service share the load instead of each answering every request.
 */
export function serviceTransportOptions(serviceName: string, natsUrl: string): NatsTransportOptions {
  return {
    servers: natsUrl.split(','),
    queue: serviceName,
    name: serviceName,
    gracefulShutdown: true,
    gracePeriod: 2000,
    maxReconnectAttempts: -1,
  } as NatsTransportOptions;
}

/**
 * Runs each message handler inside the request context carried by the `x-request-id` header, and
 * writes one debug line per handled message (the service-side counterpart of the gateway's access
 * log), so every line a request causes in a service carries its request id.
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  constructor(@Optional() private readonly logger?: Logger) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpcContext = context.switchToRpc().getContext() as { getHeaders?: () => { get(k: string): string } | undefined; getSubject?: () => string };
    const headers = typeof rpcContext?.getHeaders === 'function' ? rpcContext.getHeaders() : undefined;
    const subject = typeof rpcContext?.getSubject === 'function' ? rpcContext.getSubject() : undefined;
    const requestId = headers?.get(Headers.requestId) || randomUUID();
    const started = process.hrtime.bigint();
    const handled = (outcome: 'ok' | 'error') =>
      this.logger?.debug({ subject, outcome, duration_ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'message handled');
    return new Observable((subscriber) =>
      requestContext.run({ requestId }, () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (err: unknown) => {
            handled('error');
            subscriber.error(err);
          },
          complete: () => {
            handled('ok');
            subscriber.complete();
          },
        }),
      ),
    );
  }
}
