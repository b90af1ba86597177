import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { GATEWAY_SETTINGS, LOGGER, type GatewaySettings } from '../tokens.js';
import { canSpend, giveBack, leaseOf, sliceToLease, spend, stateOf, type Grant, type Lease } from './rate-limit-leases.rules.js';
import {
  bucketsFor,
  DEFAULT_RATE_LIMITS,
  failedAuthBucket,
  refusalHeaders,
  refusalOf,
  verdictOf,
  type Budget,
  type BucketSpec,
  type BucketState,
  type LimitedCaller,
  type Refusal,
} from './rate-limits.rules.js';
import { RateLimitsStore } from './rate-limits.store.js';

const SWEEP_EVERY_MS = 60_000;
/** Local refusals are a cache of what the shared buckets decided; past this many, expired ones are dropped first. */
const MAX_LOCAL_REFUSALS = 10_000;
/** Slices held for keys and accounts; past this many, expired ones are dropped first (dropping a live one only refuses a slice early, never admits more). */
const MAX_LOCAL_LEASES = 20_000;
/** A request waits for another request's lease of the same bucket at most this many times before leasing itself. */
const MAX_LEASE_WAITS = 3;

const tooMany = (message: string, headers: Record<string, string>) => apiFailure('rate_limited', message, {}, headers);

/**
 * Applies the limits for the access guard: per client address before authentication (only failures spend
 * from it), per key and per account after. The buckets live in PostgreSQL, so every replica spends from
 * the same ones; per key and account a replica leases slices of them and spends those in memory
 * (rate-limit-leases.rules.ts: one round trip per slice, the overshoot bounded by the slices held). A refusal
 * is also remembered here until the moment it certainly holds (GCRA state only moves forward), so a client
 * hammering a replica costs that replica no database round trips meanwhile.
 */
@Injectable()
export class RateLimiter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly refusals = new Map<string, Refusal>();
  private readonly leases = new Map<string, Lease>();
  /** The lease call under way per bucket: requests that need the same bucket meanwhile wait for it instead of leasing too. */
  private readonly leasing = new Map<string, Promise<void>>();
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
    this.timer = setInterval(() => {
      this.dropExpiredLeases();
      void this.store.sweep().catch((err: Error) => this.logger.warn({ reason: err.message }, 'could not sweep rate-limit buckets'));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Before authentication: an address that failed too often is refused without its credentials being looked at. */
  refuseThrottledAddress(req: FastifyRequest, res: FastifyReply): void {
    if (!this.limits.enabled) return;
    const headers = refusalHeaders(this.refusals.get(addressBucket(req)), Date.now());
    if (headers) throw this.refuse(res, headers, `Too many failed authentications from this address; retry in ${headers['Retry-After']} s.`);
  }

  /** A failed authentication spends from its address's bucket; the failure becomes a 429 once that is empty. */
  async failedAuthentication(req: FastifyRequest, res: FastifyReply, failure: ApiFailure): Promise<ApiFailure> {
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
  refuseWhileRefused(res: FastifyReply, keyHash: string, budget: Budget): void {
    if (!this.limits.enabled) return;
    const headers = refusalHeaders(this.refusals.get(`${keyHash}:${budget}`), Date.now());
    if (headers) throw this.refuse(res, headers, tooManyMessage(budget, headers));
  }

  /** After authentication: takes from the key's and the account's buckets, sets the RateLimit headers, refuses with 429 when empty. */
  async admit(res: FastifyReply, keyHash: string, caller: LimitedCaller, budget: Budget): Promise<void> {
    if (!this.limits.enabled) return;
    const taken = await this.takeFromSlices(bucketsFor(this.limits, caller, budget));
    const verdict = verdictOf(taken.allowed, taken.states);
    if (verdict.allowed) {
      res.headers(verdict.headers);
      return;
    }
    this.remember(`${keyHash}:${budget}`, refusalOf(verdict, Date.now()));
    throw this.refuse(res, verdict.headers, tooManyMessage(budget, verdict.headers));
  }

  /**
   * One token from every bucket or from none, out of this replica's slices; a bucket whose slice is spent is leased
   * again (all such buckets in one round trip). Tokens are reserved synchronously, so concurrent requests never
   * spend the same token; a request refused by one bucket gives the others' tokens back to their slices.
   */
  private async takeFromSlices(buckets: BucketSpec[]): Promise<{ allowed: boolean; states: BucketState[] }> {
    const reserved = new Set<string>();
    const refusedStates = new Map<string, BucketState>();
    const reserve = (now: number) => {
      for (const b of buckets) {
        const lease = this.leases.get(b.name);
        if (!reserved.has(b.name) && canSpend(lease, now)) {
          this.leases.set(b.name, spend(lease));
          reserved.add(b.name);
        }
      }
    };
    reserve(Date.now());
    for (let waits = 0; reserved.size < buckets.length; waits++) {
      const missing = buckets.filter((b) => !reserved.has(b.name));
      const underway = missing.map((b) => this.leasing.get(b.name)).filter((p) => p !== undefined);
      if (underway.length > 0 && waits < MAX_LEASE_WAITS) {
        await Promise.all(underway);
        reserve(Date.now());
        continue;
      }
      const refused = await this.leaseFor(missing);
      for (const b of missing) if (!refused.has(b.name)) reserved.add(b.name);
      for (const [name, state] of refused) refusedStates.set(name, state);
      break;
    }
    const now = Date.now();
    if (refusedStates.size === 0) return { allowed: true, states: buckets.map((b) => stateOf(b.name, this.leases.get(b.name)!, now)) };
    for (const name of reserved) {
      const lease = this.leases.get(name);
      if (lease) this.leases.set(name, giveBack(lease, now));
    }
    return {
      allowed: false,
      states: buckets.map((b) => refusedStates.get(b.name) ?? (this.leases.has(b.name) ? stateOf(b.name, this.leases.get(b.name)!, now) : fullState(b))),
    };
  }

  /** Leases slices of these buckets in one round trip, one token of each reserved for the caller; returns the buckets that granted none. */
  private async leaseFor(buckets: BucketSpec[]): Promise<Map<string, BucketState>> {
    const startedAt = Date.now();
    const wants = buckets.map((bucket) => ({ bucket, want: sliceToLease(this.leases.get(bucket.name), startedAt, bucket.burst) }));
    const call = this.store.lease(wants);
    const underway = call.then(
      () => undefined,
      () => undefined,
    );
    for (const b of buckets) this.leasing.set(b.name, underway);
    try {
      const grants = await call;
      const now = Date.now();
      const refused = new Map<string, BucketState>();
      if (this.leases.size + buckets.length > MAX_LOCAL_LEASES) this.dropExpiredLeases();
      for (const { bucket, want } of wants) {
        // No row back: a sweep deleted the (full) bucket in between, and a full bucket admits.
        const grant: Grant = grants.get(bucket.name) ?? { granted: 1, state: { ...fullState(bucket), remaining: bucket.burst - 1 } };
        const reserved = grant.granted >= 1 ? 1 : 0;
        this.leases.set(bucket.name, leaseOf(bucket, want, grant, reserved, this.leases.get(bucket.name), now));
        if (!reserved) refused.set(bucket.name, grant.state);
      }
      return refused;
    } finally {
      for (const b of buckets) if (this.leasing.get(b.name) === underway) this.leasing.delete(b.name);
    }
  }

  private dropExpiredLeases(): void {
    const now = Date.now();
    for (const [name, lease] of this.leases) if (now >= lease.expires_at_ms) this.leases.delete(name);
    // Still full of live slices: dropping them only refuses early until they are leased again, never admits more.
    if (this.leases.size >= MAX_LOCAL_LEASES) this.leases.clear();
  }

  private refuse(res: FastifyReply, headers: Record<string, string>, message: string): ApiFailure {
    res.headers(headers);
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

const fullState = (b: BucketSpec): BucketState => ({ name: b.name, limit: b.burst, remaining: b.burst, reset_s: 0, retry_s: 0 });

const BUDGET_NAMES: Record<Budget, string> = { reads: 'read', writes: 'write', call_events: 'call-event' };

function tooManyMessage(budget: Budget, headers: Record<string, string>): string {
  return `Too many ${BUDGET_NAMES[budget]} requests for this API key or its account; retry in ${headers['Retry-After']} s.`;
}

/** The peer's address: behind a proxy that is the proxy's, so every client there shares one failed-authentication budget. */
function clientAddress(req: FastifyRequest): string {
  return req.socket.remoteAddress ?? 'unknown';
}

const addressBucket = (req: FastifyRequest) => `address:${clientAddress(req)}`;
