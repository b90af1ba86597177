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

export const DELIVERY_ATTEMPTS = Symbol('DELIVERY_ATTEMPTS');

/** One attempt of a delivery its caller holds the lease of: sent, stored and settled by the schedule. */
export interface DeliveryAttempts {
  readonly leaseMs: number;
  attempt(delivery: LeasedDelivery): Promise<SentAttempt>;
}

/**
 * Claims due deliveries, attempts each (never awaiting one before claiming more), and settles it by the schedule.
 * A POST holds one of the process's slots only until it is answered: its settlement is queued and committed with
 * the others that ended meanwhile, while the slot already carries another attempt. The delivery stays leased until
 * its settlement commits, so no second attempt of it can start (the per-endpoint cap counts it until then), and a
 * process that dies in between leaves a lease that expires: the delivery is attempted again (at least once).
 */
export class DeliveryWorker implements DeliveryAttempts {
  readonly leaseMs = LEASE_MS;
  private timer?: NodeJS.Timeout;
  /** POSTs waiting for their answer: the process's slots in use. */
  private readonly sending = new Set<Promise<void>>();
  /** Deliveries whose POST has its answer and whose settlement is not committed yet: leased, not in flight. */
  private readonly answered = new Set<string>();
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

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.sending]);
    await this.drained;
    this.sender.close();
  }

  /**
   * A look for due deliveries: on the timer, and again as soon as a POST is answered (its slot, and its endpoint's
   * room under the cap, are free; its delivery stays leased until its settlement commits) or settlements commit (a
   * retry due at once), so a busy endpoint is not held to one batch per interval. At most one claim runs at a time
   * and one more waits: answers that come meanwhile share it.
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
        const free = this.settings.concurrency - this.sending.size;
        const claimed = await this.store.claim(free, this.settings.perEndpointConcurrency, randomUUID(), LEASE_MS, [...this.answered]);
        for (const delivery of claimed) {
          const sending = this.run(delivery).finally(() => {
            this.sending.delete(sending);
            void this.poll();
          });
          this.sending.add(sending);
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      this.logger.error({ err }, 'claiming due webhook deliveries failed');
    } finally {
      this.polling = false;
    }
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
          for (const waiting of batch) this.answered.delete(waiting.settlement.delivery.id);
        }
        void this.poll();
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
