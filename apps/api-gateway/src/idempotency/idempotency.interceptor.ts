import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { httpStatusOf } from '@voice/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { catchError, mergeMap, type Observable } from 'rxjs';
import { apiFailure } from '../http/api-failure.js';
import { errorEnvelope } from '../http/envelope.js';
import { describedFailure } from '../http/exception.filter.js';
import { headerOf, pathOf, requestIdOf, type GatewayRequest } from '../http/gateway-request.js';
import { PreparedAnswer } from '../http/prepared-answer.js';
import { LOGGER } from '../tokens.js';
import {
  IDEMPOTENCY_KEY_FORMAT,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_WINDOW_MS,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyVerdict,
  isFinalAnswer,
  parseIdempotencyKey,
  replayedHeaders,
  requestFingerprint,
} from './idempotency.rules.js';
import { IdempotencyStore, type StoredAnswer } from './idempotency.store.js';

/** An answer that arrives after the client was already told 503 (a service replying late). */
export interface LateAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** What a handler of a request that carries an Idempotency-Key can use. */
export interface IdempotencyHandle {
  readonly key: string;
  /**
   * The request is answered 503 because a service did not reply in time, but the reply may still come:
   * its answer then becomes the key's answer (and the key stays claimed until it is known), so the
   * client's retry replays it instead of running the command a second time.
   */
  answerLater(late: Promise<LateAnswer>): void;
}

const HANDLE = Symbol('idempotency');
type IdempotentRequest = GatewayRequest & { [HANDLE]?: IdempotencyHandle & { late?: Promise<LateAnswer> } };

/** The request's Idempotency-Key handle; undefined when the client sent no key. */
export function idempotencyOf(req: FastifyRequest): IdempotencyHandle | undefined {
  return (req as IdempotentRequest)[HANDLE];
}

interface Claim {
  scope: string;
  key: string;
  token: string;
}

/** Tries before giving up on a key that changes under us (claimed, released, expired, taken over in between). */
const CLAIM_ATTEMPTS = 3;

const inUse = () =>
  apiFailure('idempotency_key_in_use', `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being handled; retry once it has finished.`, {
    field: IDEMPOTENCY_KEY_HEADER,
  });

/**
 * Idempotency-Key on the routes that create or replace something (Stripe's semantics). Runs after the
 * access guard, so a 401/403 never touches a key. Keys are scoped per account (the admin token has one
 * scope of its own). The first request claims the key in PostgreSQL (shared by every replica); its final
 * answer (2xx or 4xx) is stored and replayed for 24 h with `Idempotent-Replayed: true`; a 5xx releases
 * the key so the retry runs again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const res = context.switchToHttp().getResponse<FastifyReply>();
    const parsed = parseIdempotencyKey(headerOf(req, IDEMPOTENCY_KEY_HEADER));
    if (parsed.kind === 'absent') return next.handle();
    if (parsed.kind === 'malformed') throw apiFailure('invalid_request', IDEMPOTENCY_KEY_FORMAT, { field: IDEMPOTENCY_KEY_HEADER });

    const caller = (req as GatewayRequest).caller;
    const claim: Claim = { scope: caller ? `account:${caller.account.id}` : 'admin', key: parsed.key, token: randomUUID() };
    await this.acquire(claim, requestFingerprint({ method: req.method, path: pathOf(req), body: req.body }));

    const handle: IdempotencyHandle & { late?: Promise<LateAnswer> } = {
      key: parsed.key,
      answerLater(late) {
        late.catch(() => undefined);
        handle.late = late;
      },
    };
    (req as IdempotentRequest)[HANDLE] = handle;

    return next.handle().pipe(
      catchError(async (err: unknown) => {
        await this.settleFailure(claim, req, err, handle.late);
        throw err;
      }),
      mergeMap(async (body: unknown) => {
        await this.finish(claim, { status: res.statusCode, body: body === undefined ? '' : JSON.stringify(body), headers: replayedHeaders(res.getHeaders()) });
        return body;
      }),
    );
  }

  /** Holds the key for this request, or throws what the request gets instead (a replay, 409 or 422). */
  private async acquire(claim: Claim, fingerprint: string): Promise<void> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      if (await this.store.claim(claim.scope, claim.key, fingerprint, claim.token, IDEMPOTENCY_WINDOW_MS)) return;
      const found = await this.store.find(claim.scope, claim.key);
      if (!found) continue; // released in between
      switch (idempotencyVerdict(found.stored, fingerprint, found.now)) {
        case 'claim':
          await this.store.forgetExpired(claim.scope, claim.key);
          continue;
        case 'replay': {
          const answer = found.stored.answer!;
          throw new PreparedAnswer(answer.status, answer.body, { ...answer.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
        }
        case 'reused':
          throw apiFailure(
            'idempotency_key_reused',
            `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request (method, path or body) in the last 24 hours; use a new key for a new request.`,
            { field: IDEMPOTENCY_KEY_HEADER },
          );
        case 'in_use':
          throw inUse();
        case 'take_over':
          if (await this.store.takeOver(claim.scope, claim.key, found.stored.claimToken, claim.token, IDEMPOTENCY_WINDOW_MS)) {
            this.logger.warn({ claimed_at: found.stored.claimedAt.toISOString() }, 'took over an idempotency key left running by a gateway that stopped');
            return;
          }
          continue;
      }
    }
    throw inUse();
  }

  /** A handler's failure: a final one (4xx) is the key's answer; an outage or bug releases the key, unless a late reply may still settle it. */
  private async settleFailure(claim: Claim, req: FastifyRequest, err: unknown, late: Promise<LateAnswer> | undefined): Promise<void> {
    const described = describedFailure(err, req);
    const status = described ? httpStatusOf(described.error.code) : 500;
    if (described && isFinalAnswer(status)) {
      const body = JSON.stringify(errorEnvelope(described.error, requestIdOf(req)));
      await this.finish(claim, { status, body, headers: described.headers ?? {} });
      return;
    }
    if (late && status === 503) {
      void this.settleLate(claim, req, late);
      return;
    }
    await this.release(claim);
  }

  private async settleLate(claim: Claim, req: FastifyRequest, late: Promise<LateAnswer>): Promise<void> {
    let answer: LateAnswer;
    try {
      answer = await late;
    } catch (err) {
      await this.settleFailure(claim, req, err, undefined);
      return;
    }
    this.logger.info({ status: answer.status }, 'a late reply became the answer of its idempotency key');
    await this.finish(claim, { status: answer.status, body: JSON.stringify(answer.body), headers: answer.headers });
  }

  // A failure to record is logged, not answered: the client still gets the answer it is owed, and the key,
  // left running, is taken over once stale.
  private async finish(claim: Claim, answer: StoredAnswer): Promise<void> {
    try {
      if (!isFinalAnswer(answer.status)) await this.store.release(claim.scope, claim.key, claim.token);
      else if (!(await this.store.complete(claim.scope, claim.key, claim.token, answer))) {
        this.logger.warn('an idempotency key was taken over before its answer was stored');
      }
    } catch (err) {
      this.logger.warn({ reason: (err as Error).message }, 'could not store the answer of an idempotency key');
    }
  }

  private async release(claim: Claim): Promise<void> {
    try {
      await this.store.release(claim.scope, claim.key, claim.token);
    } catch (err) {
      this.logger.warn({ reason: (err as Error).message }, 'could not release an idempotency key');
    }
  }
}
