import type { EndpointDisabledData } from '@voice/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { DeliveryPlanner } from '../record-events/record-events.store.js';
import { disableReason, type DeliveryDecision } from './delivery-schedule.rules.js';

/** A delivery a worker holds the lease of, with what its attempt needs. */
export interface LeasedDelivery {
  id: string;
  lease_token: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  /** The rotated-out secret while it still signs, else null. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  body: string;
}

export interface AttemptRecord {
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

/**
 * The delivery queue. Workers of every replica claim due deliveries with row locks skipped when held
 * (SKIP LOCKED) and a lease: a delivery is attempted by one worker at a time; one whose worker died is due
 * again once its lease expires. An endpoint never has more than `perEndpoint` leased deliveries, so a slow
 * endpoint uses its own share of the workers and never delays another's deliveries.
 */
export interface DeliveriesSettings {
  /** WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES: an endpoint is disabled after this many failed deliveries in a row. */
  disableAfterFailedDeliveries: number;
  /** The wait before a new delivery's first attempt (for the webhook_endpoint.disabled event's deliveries). */
  firstDelayMs: number;
}

export class DeliveriesStore {
  constructor(private readonly dataSource: DataSource, private readonly settings: DeliveriesSettings) {}

  async claim(limit: number, perEndpoint: number, leaseToken: string, leaseMs: number): Promise<LeasedDelivery[]> {
    if (limit <= 0) return [];
    return this.dataSource.query(
      `WITH busy AS (
         SELECT endpoint_id, count(*) AS n FROM notifications.deliveries
          WHERE status = 'pending' AND lease_until > now() GROUP BY endpoint_id
       ), ranked AS (
         SELECT d.id, d.endpoint_id, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS rank
           FROM notifications.deliveries d JOIN notifications.endpoints e ON e.id = d.endpoint_id AND e.enabled
          WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until <= now())
       ), picked AS (
         SELECT r.id FROM ranked r LEFT JOIN busy b ON b.endpoint_id = r.endpoint_id
          WHERE r.rank <= $2 - coalesce(b.n, 0) LIMIT $1
       ), locked AS (
         SELECT d.id FROM notifications.deliveries d
          WHERE d.id IN (SELECT id FROM picked) AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= now())
          FOR UPDATE SKIP LOCKED
       ), leased AS (
         UPDATE notifications.deliveries d SET lease_token = $3, lease_until = now() + ($4 || ' milliseconds')::interval
           FROM locked WHERE d.id = locked.id
         RETURNING d.id, d.lease_token, d.attempts, d.endpoint_id, d.event_id
       )
       SELECT l.id, l.lease_token, l.attempts, l.endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, l.event_id, ev.body
         FROM leased l JOIN notifications.endpoints e ON e.id = l.endpoint_id JOIN notifications.events ev ON ev.id = l.event_id`,
      [limit, perEndpoint, leaseToken, String(leaseMs)],
    );
  }

  /**
   * Stores the attempt and, while the lease is still this worker's, the delivery's new state. A worker whose
   * lease expired meanwhile (another may be attempting) records its attempt and changes nothing else.
   */
  async settle(delivery: LeasedDelivery, attempt: AttemptRecord, decision: DeliveryDecision): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.query(
        `INSERT INTO notifications.delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms, response_body) VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.id, attempt.attempted_at, attempt.status_code, attempt.error, attempt.duration_ms, attempt.response_body],
      );
      const delayMs = decision.status === 'pending' ? String(decision.delayMs) : null;
      // TypeORM answers an UPDATE with [rows, row count].
      const [, settled]: [unknown[], number] = await em.query(
        `UPDATE notifications.deliveries
            SET status = $3, attempts = attempts + 1, lease_token = NULL, lease_until = NULL, updated_at = now(),
                next_attempt_at = CASE WHEN $4::text IS NULL THEN NULL ELSE now() + ($4::text || ' milliseconds')::interval END
          WHERE id = $1 AND lease_token = $2 RETURNING id`,
        [delivery.id, delivery.lease_token, decision.status, delayMs],
      );
      if (settled === 0) return;
      if (decision.status === 'succeeded') {
        await em.query('UPDATE notifications.endpoints SET failed_in_a_row = 0, failing_since = NULL WHERE id = $1 AND failed_in_a_row > 0', [delivery.endpoint_id]);
      }
      if (decision.status === 'failed') await this.countFailure(em, delivery.endpoint_id);
    });
  }

  /**
   * One more failed delivery in a row; an endpoint past the threshold (or failing for 5 days) is disabled, and
   * the account's other endpoints are told with a webhook_endpoint.disabled event.
   */
  private async countFailure(em: EntityManager, endpointId: string): Promise<void> {
    const [[streak]]: [Array<{ account_id: string; url: string; enabled: boolean; failed_in_a_row: number; failing_since: Date }>, number] = await em.query(
      `UPDATE notifications.endpoints SET failed_in_a_row = failed_in_a_row + 1, failing_since = coalesce(failing_since, now())
        WHERE id = $1 RETURNING account_id, url, enabled, failed_in_a_row, failing_since`,
      [endpointId],
    );
    if (!streak?.enabled) return;
    const now = new Date();
    const reason = disableReason({ failedInARow: streak.failed_in_a_row, failingSince: streak.failing_since }, now, this.settings.disableAfterFailedDeliveries);
    if (!reason) return;
    const data: EndpointDisabledData = { endpoint_id: endpointId, url: streak.url, reason };
    await em.query('UPDATE notifications.endpoints SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1', [endpointId, reason]);
    await new DeliveryPlanner(em, this.settings.firstDelayMs).record({
      account_id: streak.account_id,
      type: 'webhook_endpoint.disabled',
      source_key: `endpoint-disabled:${endpointId}:${now.toISOString()}`,
      agent_id: null,
      conversation_id: null,
      occurred_at: now.toISOString(),
      data,
    });
  }
}
