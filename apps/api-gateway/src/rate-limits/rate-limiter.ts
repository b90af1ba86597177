import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { GATEWAY_SETTINGS, LOGGER, type GatewaySettings } from '../tokens.js';
import {
  bucketsFor,
  DEFAULT_RATE_LIMITS,
  failedAuthBucket,
  refusalHeaders,
  refusalOf,
  verdictOf,
  type Budget,
  type LimitedCaller,
  type Refusal,
} from './rate-limits.rules.js';
import { RateLimitsStore } from './rate-limits.store.js';

const SWEEP_EVERY_MS = 60_000;
/** Local refusals are a cache of what the shared buckets decided; past this many, expired ones are dropped first. */
const MAX_LOCAL_REFUSALS = 10_000;

const tooMany = (message: string, headers: Record<string, string>) => apiFailure('rate_limited', message, {}, headers);

/**
 * Applies the limits for the access guard: per client address before authentication (only failures spend
 * from it), per key and per account after. The buckets live in PostgreSQL, so every replica spends from
 * the same ones. A refusal is also remembered here until the moment it certainly holds (GCRA state only
 * moves forward), so a client hammering a replica costs that replica no database round trips meanwhile.
 */
@Injectable()
export class RateLimiter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly refusals = new Map<string, Refusal>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: RateLimitsStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private get limits() {
    return this.settings.rateLimits ?? DEFAULT_RATE_LIMITS;
  }

  onApplicationBootstrap(): void {
    if (!this.limits.enabled) return;
    this.timer = setInterval(() => void this.store.sweep().catch((err: Error) => this.logger.warn({ reason: err.message }, 'could not sweep rate-limit buckets')), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Before authentication: an address that failed too often is refused without its credentials being looked at. */
  refuseThrottledAddress(req: Request, res: Response): void {
    if (!this.limits.enabled) return;
    const headers = refusalHeaders(this.refusals.get(addressBucket(req)), Date.now());
    if (headers) throw this.refuse(res, headers, `Too many failed authentications from this address; retry in ${headers['Retry-After']} s.`);
  }

  /** A failed authentication spends from its address's bucket; the failure becomes a 429 once that is empty. */
  async failedAuthentication(req: Request, res: Response, failure: ApiFailure): Promise<ApiFailure> {
    if (!this.limits.enabled) return failure;
    const bucket = failedAuthBucket(this.limits, clientAddress(req));
    try {
      const taken = await this.store.take([bucket]);
      const verdict = verdictOf(taken.allowed, taken.states);
      if (verdict.allowed) return failure;
      this.remember(addressBucket(req), refusalOf(verdict, Date.now()));
      return this.refuse(res, verdict.headers, `Too many failed authentications from this address; retry in ${verdict.headers['Retry-After']} s.`);
    } catch (err) {
      // The authentication failed either way; the database being unavailable here must not turn a 401 into a 503.
      this.logger.warn({ reason: (err as Error).message }, 'could not count a failed authentication');
      return failure;
    }
  }

  /** Before a key is looked up: a key (and budget) refused moments ago is refused again without a round trip. */
  refuseWhileRefused(res: Response, keyHash: string, budget: Budget): void {
    if (!this.limits.enabled) return;
    const headers = refusalHeaders(this.refusals.get(`${keyHash}:${budget}`), Date.now());
    if (headers) throw this.refuse(res, headers, tooManyMessage(budget, headers));
  }

  /** After authentication: takes from the key's and the account's buckets, sets the RateLimit headers, refuses with 429 when empty. */
  async admit(res: Response, keyHash: string, caller: LimitedCaller, budget: Budget): Promise<void> {
    if (!this.limits.enabled) return;
    const taken = await this.store.take(bucketsFor(this.limits, caller, budget));
    const verdict = verdictOf(taken.allowed, taken.states);
    if (verdict.allowed) {
      res.set(verdict.headers);
      return;
    }
    this.remember(`${keyHash}:${budget}`, refusalOf(verdict, Date.now()));
    throw this.refuse(res, verdict.headers, tooManyMessage(budget, verdict.headers));
  }

  private refuse(res: Response, headers: Record<string, string>, message: string): ApiFailure {
    res.set(headers);
    return tooMany(message, headers);
  }

  private remember(id: string, refusal: Refusal): void {
    if (this.refusals.size >= MAX_LOCAL_REFUSALS) {
      const now = Date.now();
      for (const [key, r] of this.refusals) if (r.until_ms <= now) this.refusals.delete(key);
      // Still full of live refusals: forgetting some only costs round trips, never correctness.
      if (this.refusals.size >= MAX_LOCAL_REFUSALS) this.refusals.clear();
    }
    this.refusals.set(id, refusal);
  }
}

const BUDGET_NAMES: Record<Budget, string> = { reads: 'read', writes: 'write', call_events: 'call-event' };

function tooManyMessage(budget: Budget, headers: Record<string, string>): string {
  return `Too many ${BUDGET_NAMES[budget]} requests for this API key or its account; retry in ${headers['Retry-After']} s.`;
}

/** The peer's address: behind a proxy that is the proxy's, so every client there shares one failed-authentication budget. */
function clientAddress(req: Request): string {
  return req.socket.remoteAddress ?? 'unknown';
}

const addressBucket = (req: Request) => `address:${clientAddress(req)}`;
