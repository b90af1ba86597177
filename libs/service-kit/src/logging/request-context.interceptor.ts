import { Injectable, Optional, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Headers } from '@voice/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Observable } from 'rxjs';
import { requestContext } from './logging.js';

/**
 * Runs each message handler inside the request context carried by the `x-request-id` header (and, on a change,
 * the `x-actor-key-id` and `x-client-address` the gateway adds for the audit log), and
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
    const actorKeyId = headers?.get(Headers.actorKeyId) || undefined;
    const clientAddress = headers?.get(Headers.clientAddress) || undefined;
    const started = process.hrtime.bigint();
    const handled = (outcome: 'ok' | 'error') =>
      this.logger?.debug({ subject, outcome, duration_ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'message handled');
    return new Observable((subscriber) =>
      requestContext.run({ requestId, actorKeyId, clientAddress }, () =>
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
