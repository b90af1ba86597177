import type { SecretBox } from '@voice/service-kit';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { DeliveryHandoff, HandedDelivery, HandoffReservation } from '../record-events/record-events.store.js';
import { signingSecrets } from '../webhook-endpoints/webhook-endpoint.rules.js';
import { previousSecretContext, secretContext } from '../webhook-endpoints/webhook-endpoints.settings.js';
import type { DeliveriesStore, LeasedDelivery, Settlement } from './deliveries.store.js';
import { afterAttempt, DELIVERY_TIMEOUT_MS } from './delivery-schedule.rules.js';
import { handoffShares, nextToAttempt, roomToHold } from './handoff.rules.js';
import type { SentAttempt, WebhookSender } from './webhook-sender.js';

export interface DeliveryWorkerSettings {
  /** WEBHOOK_RETRY_SCHEDULE_MS. */
  retryScheduleMs: readonly number[];
  /** Attempts in flight in this process at most. */
  concurrency: number;
  /** Attempts in flight per endpoint at most, over every replica. */
  perEndpointConcurrency: number;
  /** How often due deliveries are looked for. */
  pollIntervalMs: number;
  /** Handed-over deliveries held at most, as a multiple of the slots (and of each endpoint's cap); HOLD_PER_SLOT when unset. */
  holdPerSlot?: number;
  /** The characters of bodies held at most; HELD_BODIES_BUDGET_CHARS when unset. */
  heldBodiesBudgetChars?: number;
}

/**
 * Settlements committing look for more at once; the timer only finds what became due while nothing was in flight,
 * so its interval is the worst wait of a new event on an idle worker (a claim with nothing due is a few index probes).
 * A lease lasts from its claim to its settlement's commit, not just the POST, so an endpoint needs room for more
 * than the POSTs it answers at once: 16 per endpoint, 128 per process. The ratio (8) is the isolation: seven
 * endpoints hanging at once leave an eighth of the slots to the others, as 4 of 32 did.
 */
export const DEFAULT_DELIVERY_WORKER: Omit<DeliveryWorkerSettings, 'retryScheduleMs'> = { concurrency: 128, perEndpointConcurrency: 16, pollIntervalMs: 50 };

/** The most settlements one commit holds. */
const MAX_SETTLEMENTS_PER_COMMIT = 256;

/** Opened secrets kept at most (two per endpoint while a rotated-out secret still signs). */
const MAX_OPENED_SECRETS = 10_000;

/** A lease outlives the attempt's deadline, so only a worker that died loses it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 15_000;

/**
 * Deliveries handed over as they are recorded wait for a slot in the worker: it holds at most this many times its
 * slots (and each endpoint's cap) of them, queued, in flight or awaiting their settlement. What it cannot hold waits
 * for a claim, which costs the database a lease (an update of the row and its index entries) that a hand-over does
 * not: at 8× a burst's deliveries were mostly claimed, at 32× mostly handed over (the outbound bench: the database's
 * CPU per delivery 0.14–0.18 ms → 0.09–0.11). 128× was no faster, and a hanging endpoint may hold its whole share
 * queued for as long as its leases last.
 */
export const HOLD_PER_SLOT = 32;

/**
 * The bodies held are bounded too: a conversation.ended carries its transcript (up to 256 KiB), and 4,096 of them
 * would be a gigabyte. 64 Mi characters holds 4,096 deliveries of bodies up to 16 KiB, 256 of the longest.
 */
export const HELD_BODIES_BUDGET_CHARS = 64 * 1024 * 1024;

/** A queued delivery starts only while its lease outlasts the attempt's deadline by this much (clocks drift). */
const LEASE_MARGIN_MS = 5_000;

export const DELIVERY_ATTEMPTS = Symbol('DELIVERY_ATTEMPTS');

/** One attempt of a delivery its caller holds the lease of: sent, stored and settled by the schedule. */
export interface DeliveryAttempts {
  readonly leaseMs: number;
  attempt(delivery: LeasedDelivery): Promise<SentAttempt>;
}

const add = (counts: Map<string, number>, key: string, n: number) => {
  const value = (counts.get(key) ?? 0) + n;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
};

/**
 * Attempts deliveries and settles each by the schedule. They come two ways:
 * - handed over by this process's recordings, leased in the transaction that records them, and queued until a
 *   slot is free and their endpoint is under its cap (endpoints served in turn); no claim stands between an
 *   event's commit and its POST;
 * - claimed when due (retries, expired leases, what no worker took as it was recorded), never awaiting one before
 *   claiming more.
 * A POST holds one of the process's slots only until it is answered: its settlement is queued and committed with
 * the others that ended meanwhile, while the slot already carries another attempt. The delivery stays leased until
 * its settlement commits, so no second attempt of it can start (the per-endpoint cap counts it until then), and a
 * process that dies in between leaves a lease that expires: the delivery is attempted again (at least once).
 */
export class DeliveryWorker implements DeliveryAttempts, DeliveryHandoff {
  readonly leaseMs = LEASE_MS;
  private timer?: NodeJS.Timeout;
  /** POSTs waiting for their answer: the process's slots in use. */
  private readonly sending = new Set<Promise<void>>();
  /** POSTs waiting for their answer, per endpoint. */
  private readonly inFlight = new Map<string, number>();
  /** Deliveries whose POST has its answer and whose settlement is not committed yet: leased, not in flight. */
  private readonly answered = new Set<string>();
  /** Deliveries leased to this worker (queued, in flight or awaiting their settlement), by id and per endpoint, and their bodies' characters. */
  private readonly held = new Set<string>();
  private readonly heldFor = new Map<string, number>();
  private heldChars = 0;
  /**
   * Handed-over deliveries waiting for a slot, per endpoint with some; an endpoint moves to the back once one of
   * its deliveries starts, so endpoints are served in turn.
   */
  private readonly queue = new Map<string, HandedDelivery[]>();
  /** Room promised to recordings not committed yet: in all, per endpoint, and in body characters. */
  private reserved = 0;
  private readonly reservedFor = new Map<string, number>();
  private reservedChars = 0;
  /**
   * Due deliveries may be waiting unleased: the last claim found some, or a recording handed over fewer than it
   * had, or a queued delivery's lease ran short. While it is set an answer looks for more at once; otherwise the
   * timer does (a claim that finds nothing still reads every endpoint's entries: one per answer would be most of
   * the database's work in a burst).
   */
  private backlog = true;
  private stopped = false;
  private polling = false;
  /** A poll was asked for while one ran: run another right after it. */
  private again = false;
  /** Settlements waiting for the commit in progress to end; they share the next one. */
  private readonly unsettled: Array<{ settlement: Settlement; done: (err?: unknown) => void }> = [];
  private committing = false;
  private readonly openedSecrets = new Map<string, string>();
  /** The loop committing `unsettled`: stopping waits for it. */
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: DeliveriesStore,
    private readonly sender: WebhookSender,
    private readonly secretBox: SecretBox,
    private readonly settings: DeliveryWorkerSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.settings.pollIntervalMs);
  }

  /** Queued deliveries are left leased: they are claimed again once their leases expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.queue.clear();
    await Promise.allSettled([...this.sending]);
    await this.drained;
    this.sender.close();
  }

  /**
   * A look for due deliveries: on the timer, and, while some may be waiting unleased, as soon as a POST is
   * answered (its slot, and its endpoint's room under the cap, are free; its delivery stays leased until its
   * settlement commits) or settlements commit (a retry due at once). Queued deliveries take the free slots first.
   * At most one claim runs at a time and one more waits: answers that come meanwhile share it.
   */
  async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.again = false;
        const free = this.settings.concurrency - this.sending.size - this.reserved - this.startableQueued();
        if (free <= 0) break;
        const claimed = await this.store.claim(free, this.settings.perEndpointConcurrency, randomUUID(), LEASE_MS, [...this.answered]);
        this.backlog = claimed.length > 0;
        for (const delivery of claimed) {
          this.hold(delivery);
          this.attemptNow(delivery);
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      this.logger.error({ err }, 'claiming due webhook deliveries failed');
    } finally {
      this.polling = false;
    }
  }

  /**
   * Room for a recording's deliveries due at once (none with a body longer than `longestBody` characters), within
   * what the worker may hold and each endpoint's room; undefined when it gets none (stopping, or no room): those
   * deliveries wait for a claim.
   */
  reserve(wanted: ReadonlyMap<string, number>, leased: ReadonlyMap<string, number>, longestBody: number): HandoffReservation | undefined {
    const asked = [...wanted.values()].reduce((sum, n) => sum + n, 0);
    const holdPerSlot = this.settings.holdPerSlot ?? HOLD_PER_SLOT;
    const freeToHold = roomToHold(
      { held: this.held.size, promised: this.reserved, heldChars: this.heldChars, promisedChars: this.reservedChars },
      { most: this.settings.concurrency * holdPerSlot, bodyChars: this.settings.heldBodiesBudgetChars ?? HELD_BODIES_BUDGET_CHARS },
      longestBody,
    );
    const shares = this.stopped ? new Map<string, number>() : handoffShares(wanted, leased, this.heldFor, this.reservedFor, {
      freeToHold, perEndpoint: this.settings.perEndpointConcurrency * holdPerSlot,
    });
    const total = [...shares.values()].reduce((sum, n) => sum + n, 0);
    if (total < asked) this.backlog = true;
    if (total === 0) return undefined;
    const chars = total * Math.max(1, longestBody);
    this.reserved += total;
    this.reservedChars += chars;
    for (const [endpointId, share] of shares) add(this.reservedFor, endpointId, share);
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.reserved -= total;
      this.reservedChars -= chars;
      for (const [endpointId, share] of shares) add(this.reservedFor, endpointId, -share);
      return true;
    };
    return {
      leaseToken: randomUUID(),
      leaseUntil: new Date(Date.now() + LEASE_MS),
      shares,
      // A worker stopped meanwhile leaves them leased: they are claimed again when the leases expire.
      begin: (deliveries: readonly HandedDelivery[]) => {
        if (!close() || this.stopped) return;
        for (const delivery of deliveries) {
          this.hold(delivery);
          const waiting = this.queue.get(delivery.endpoint_id);
          if (waiting) waiting.push(delivery);
          else this.queue.set(delivery.endpoint_id, [delivery]);
        }
        this.pump();
      },
      release: () => void close(),
    };
  }

  /**
   * Queued deliveries that could take a slot now: those of endpoints under their cap. A slow endpoint's queue waits
   * on its own cap, so it must not keep the slots from claims of other endpoints' deliveries.
   */
  private startableQueued(): number {
    let startable = 0;
    for (const [endpointId, waiting] of this.queue) startable += Math.min(waiting.length, Math.max(0, this.settings.perEndpointConcurrency - (this.inFlight.get(endpointId) ?? 0)));
    return startable;
  }

  private hold(delivery: LeasedDelivery): void {
    if (this.held.has(delivery.id)) return;
    this.held.add(delivery.id);
    add(this.heldFor, delivery.endpoint_id, 1);
    this.heldChars += delivery.body.length;
  }

  private letGo(delivery: LeasedDelivery): void {
    if (!this.held.delete(delivery.id)) return;
    add(this.heldFor, delivery.endpoint_id, -1);
    this.heldChars -= delivery.body.length;
  }

  /** Queued deliveries into the free slots, endpoints in turn, each under its cap. */
  private pump(): void {
    while (!this.stopped && this.queue.size > 0 && this.sending.size < this.settings.concurrency) {
      const endpointId = nextToAttempt(this.queue, this.inFlight, this.settings.perEndpointConcurrency);
      if (endpointId === undefined) return;
      const waiting = this.queue.get(endpointId)!;
      const delivery = waiting.shift()!;
      // To the back of the order (or out of it): the other endpoints' deliveries start first.
      this.queue.delete(endpointId);
      if (waiting.length > 0) this.queue.set(endpointId, waiting);
      if (delivery.lease_until.getTime() - Date.now() < DELIVERY_TIMEOUT_MS + LEASE_MARGIN_MS) {
        // Too little of the lease is left for a whole attempt: it is claimed again once the lease expires.
        this.letGo(delivery);
        this.backlog = true;
        continue;
      }
      this.attemptNow(delivery);
    }
  }

  /** In a slot of its own, free again when the POST is answered. */
  private attemptNow(delivery: LeasedDelivery): void {
    add(this.inFlight, delivery.endpoint_id, 1);
    const sending = this.run(delivery).finally(() => {
      add(this.inFlight, delivery.endpoint_id, -1);
      this.sending.delete(sending);
      this.pump();
      if (this.backlog) void this.poll();
    });
    this.sending.add(sending);
  }

  private secretsOf(delivery: LeasedDelivery, now: Date): string[] {
    const current = this.opened(delivery.secret_sealed, secretContext(delivery.endpoint_id));
    const previous = delivery.previous_secret_sealed && delivery.previous_secret_expires_at
      ? { secret: this.opened(delivery.previous_secret_sealed, previousSecretContext(delivery.endpoint_id)), expiresAt: delivery.previous_secret_expires_at }
      : undefined;
    return signingSecrets(current, previous, now);
  }

  /**
   * A sealed secret opened once per process rather than once per attempt (a decryption each). Keyed by the sealed
   * text, so a rotated or re-sealed secret is opened afresh; the secrets stay in this process's memory only.
   */
  private opened(sealed: string, context: string): string {
    const key = `${context}\n${sealed}`;
    let secret = this.openedSecrets.get(key);
    if (secret === undefined) {
      if (this.openedSecrets.size >= MAX_OPENED_SECRETS) this.openedSecrets.clear();
      secret = this.secretBox.open(sealed, context);
      this.openedSecrets.set(key, secret);
    }
    return secret;
  }

  /** One attempt, answered once its settlement is stored (the test event's RPC reports it). */
  async attempt(delivery: LeasedDelivery): Promise<SentAttempt> {
    const { sent, settled } = await this.send(delivery);
    await settled;
    return sent;
  }

  /** The POST; its settlement is queued, `settled` when committed. */
  private async send(delivery: LeasedDelivery): Promise<{ sent: SentAttempt; settled: Promise<void> }> {
    const attemptedAt = new Date();
    const sent = await this.sender.send(delivery.url, this.secretsOf(delivery, attemptedAt), delivery.event_id, delivery.body);
    this.answered.add(delivery.id);
    const decision = afterAttempt(delivery.attempts + 1, sent, this.settings.retryScheduleMs, Math.random());
    const settled = this.settle({
      delivery,
      attempt: { attempted_at: attemptedAt, status_code: sent.statusCode ?? null, error: sent.error ?? null, duration_ms: sent.durationMs, response_body: sent.responseBody },
      decision,
    });
    if (decision.status === 'failed') this.logger.warn({ delivery_id: delivery.id, endpoint_id: delivery.endpoint_id }, 'webhook delivery failed after its last attempt');
    return { sent, settled };
  }

  /**
   * Stored with the settlements of the attempts that ended meanwhile, in one statement: at thousands of attempts
   * a second a commit each would be most of the work.
   */
  private settle(settlement: Settlement): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unsettled.push({ settlement, done: (err) => (err ? reject(err) : resolve()) });
      if (this.committing) return;
      this.committing = true;
      this.drained = this.commitSettlements();
    });
  }

  /** Until nothing waits; the flag is cleared in the same step that finds the queue empty. */
  private async commitSettlements(): Promise<void> {
    try {
      while (this.unsettled.length > 0) {
        const batch = this.unsettled.splice(0, MAX_SETTLEMENTS_PER_COMMIT);
        try {
          await this.store.settle(batch.map((waiting) => waiting.settlement));
          for (const waiting of batch) waiting.done();
        } catch (err) {
          for (const waiting of batch) waiting.done(err);
        } finally {
          // Settled, or left leased until the lease expires: either way the cap counts them as leases again.
          for (const waiting of batch) {
            this.answered.delete(waiting.settlement.delivery.id);
            this.letGo(waiting.settlement.delivery);
          }
        }
        // A retry due at once is looked for now, not at the next tick.
        if (this.backlog || batch.some(({ settlement: { decision } }) => decision.status === 'pending' && decision.delayMs === 0)) void this.poll();
      }
    } finally {
      this.committing = false;
    }
  }

  private async run(delivery: LeasedDelivery): Promise<void> {
    try {
      const { settled } = await this.send(delivery);
      settled.catch((err: unknown) => {
        // The lease expires and the delivery is attempted again.
        this.logger.error({ err, delivery_id: delivery.id }, 'webhook delivery attempt could not be settled');
      });
    } catch (err) {
      this.logger.error({ err, delivery_id: delivery.id }, 'webhook delivery attempt failed unexpectedly');
    }
  }
}
