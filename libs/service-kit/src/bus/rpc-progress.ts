/**
 * Liveness of long-running requests. Request-reply over NATS cannot tell a
 * service that is still working from one that died holding the request: both
 * are silent. A handler that may run for long (a platform sync of up to 10 s)
 * therefore says it is alive: when it takes the request up and then every
 * PROGRESS_INTERVAL_MS while it works, a progress signal goes to the request's
 * reply inbox. The caller waits as long as
 * the signals come (up to its absolute bound) and gives up soon after they stop.
 *
 * The signals travel as ordinary non-final replies of Nest's transport (a
 * handler's observable may emit several values; the last one is the answer), so
 * the same mechanism works over NATS and over the in-process bus.
 */
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { filter, Observable, type OperatorFunction } from 'rxjs';

/** How often a working handler says it is alive. */
export const PROGRESS_INTERVAL_MS = 1_000;

export interface ProgressSignal {
  $progress: true;
}

const PROGRESS: ProgressSignal = { $progress: true };

export function isProgressSignal(value: unknown): value is ProgressSignal {
  return typeof value === 'object' && value !== null && (value as { $progress?: unknown }).$progress === true;
}

/** For a caller of such a handler: its replies without the progress signals (the first value left is the answer). */
export function withoutProgress<T>(): OperatorFunction<T | ProgressSignal, T> {
  return filter((value): value is T => !isProgressSignal(value));
}

/** Apply to message handlers that may outlive the caller's base RPC timeout. */
@Injectable()
export class ProgressInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return new Observable((subscriber) => {
      // At once (the request is taken up: a crash from now on is told by silence), then every interval.
      subscriber.next(PROGRESS);
      const beat = setInterval(() => subscriber.next(PROGRESS), PROGRESS_INTERVAL_MS);
      const stopBeating = () => clearInterval(beat);
      const work = next.handle().subscribe({
        next: (value) => subscriber.next(value),
        error: (err: unknown) => {
          stopBeating();
          subscriber.error(err);
        },
        complete: () => {
          stopBeating();
          subscriber.complete();
        },
      });
      return () => {
        stopBeating();
        work.unsubscribe();
      };
    });
  }
}
