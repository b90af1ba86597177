import type { SecretBox } from '@voice/service-kit';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { signingSecrets } from '../webhook-endpoints/webhook-endpoint.rules.js';
import { previousSecretContext, secretContext } from '../webhook-endpoints/webhook-endpoints.settings.js';
import type { DeliveriesStore, LeasedDelivery, Settlement } from './deliveries.store.js';
import { afterAttempt, DELIVERY_TIMEOUT_MS } from './delivery-schedule.rules.js';
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
}

/**
 * An attempt ending looks for more at once; the timer only finds what became due while nothing was in flight, so
 * its interval is the worst wait of a new event on an idle worker (a claim with nothing due is a few index probes).
 */
export const DEFAULT_DELIVERY_WORKER: Omit<DeliveryWorkerSettings, 'retryScheduleMs'> = { concurrency: 32, perEndpointConcurrency: 4, pollIntervalMs: 50 };

/** The most settlements one commit holds. */
const MAX_SETTLEMENTS_PER_COMMIT = 256;

/** A lease outlives the attempt's deadline, so only a worker that died loses it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 15_000;

export const DELIVERY_ATTEMPTS = Symbol('DELIVERY_ATTEMPTS');

/** One attempt of a delivery its caller holds the lease of: sent, stored and settled by the schedule. */
export interface DeliveryAttempts {
  readonly leaseMs: number;
  attempt(delivery: LeasedDelivery): Promise<SentAttempt>;
}

/** Claims due deliveries, attempts each (never awaiting one before claiming more), and settles it by the schedule. */
export class DeliveryWorker implements DeliveryAttempts {
  readonly leaseMs = LEASE_MS;
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private polling = false;
  /** A poll was asked for while one ran: run another right after it. */
  private again = false;
  /** Settlements waiting for the commit in progress to end; they share the next one. */
  private readonly unsettled: Array<{ settlement: Settlement; done: (err?: unknown) => void }> = [];
  private committing = false;

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

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
    this.sender.close();
  }

  /**
   * A look for due deliveries: on the timer, and again as soon as an attempt ends (its slot, and its endpoint's,
   * is free), so a busy endpoint is not held to one batch per interval.
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
        const free = this.settings.concurrency - this.inFlight.size;
        const claimed = await this.store.claim(free, this.settings.perEndpointConcurrency, randomUUID(), LEASE_MS);
        for (const delivery of claimed) {
          const attempt = this.run(delivery).finally(() => {
            this.inFlight.delete(attempt);
            void this.poll();
          });
          this.inFlight.add(attempt);
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      this.logger.error({ err }, 'claiming due webhook deliveries failed');
    } finally {
      this.polling = false;
    }
  }

  private secretsOf(delivery: LeasedDelivery, now: Date): string[] {
    const current = this.secretBox.open(delivery.secret_sealed, secretContext(delivery.endpoint_id));
    const previous = delivery.previous_secret_sealed && delivery.previous_secret_expires_at
      ? { secret: this.secretBox.open(delivery.previous_secret_sealed, previousSecretContext(delivery.endpoint_id)), expiresAt: delivery.previous_secret_expires_at }
      : undefined;
    return signingSecrets(current, previous, now);
  }

  async attempt(delivery: LeasedDelivery): Promise<SentAttempt> {
    const attemptedAt = new Date();
    const sent = await this.sender.send(delivery.url, this.secretsOf(delivery, attemptedAt), delivery.event_id, delivery.body);
    const decision = afterAttempt(delivery.attempts + 1, sent, this.settings.retryScheduleMs, Math.random());
    await this.settle({
      delivery,
      attempt: { attempted_at: attemptedAt, status_code: sent.statusCode ?? null, error: sent.error ?? null, duration_ms: sent.durationMs, response_body: sent.responseBody },
      decision,
    });
    if (decision.status === 'failed') this.logger.warn({ delivery_id: delivery.id, endpoint_id: delivery.endpoint_id }, 'webhook delivery failed after its last attempt');
    return sent;
  }

  /**
   * Stored with the settlements of the attempts that ended meanwhile, in one transaction: at hundreds of attempts
   * a second a commit each (and its WAL flush) would be most of the work.
   */
  private settle(settlement: Settlement): Promise<void> {
    return new Promise((resolve, reject) => {
      this.unsettled.push({ settlement, done: (err) => (err ? reject(err) : resolve()) });
      void this.commitSettlements();
    });
  }

  private async commitSettlements(): Promise<void> {
    if (this.committing) return;
    this.committing = true;
    try {
      while (this.unsettled.length > 0) {
        const batch = this.unsettled.splice(0, MAX_SETTLEMENTS_PER_COMMIT);
        try {
          await this.store.settle(batch.map((waiting) => waiting.settlement));
          for (const waiting of batch) waiting.done();
        } catch (err) {
          for (const waiting of batch) waiting.done(err);
        }
      }
    } finally {
      this.committing = false;
    }
  }

  private async run(delivery: LeasedDelivery): Promise<void> {
    try {
      await this.attempt(delivery);
    } catch (err) {
      // The lease expires and the delivery is attempted again.
      this.logger.error({ err, delivery_id: delivery.id }, 'webhook delivery attempt could not be settled');
    }
  }
}
