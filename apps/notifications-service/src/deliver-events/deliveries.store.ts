import type { EndpointDisabledData } from '@voice/contracts';
import type { Pool } from 'pg';
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

/** An attempt made under a lease, and what the schedule decided for its delivery. */
export interface Settlement {
  delivery: LeasedDelivery;
  attempt: AttemptRecord;
  decision: DeliveryDecision;
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

/**
 * Leases and settlements commit without waiting for their WAL flush (a few ms each, most of an attempt's time on
 * loopback). What a database crash can lose of them is the last fraction of a second: a lease (the delivery is
 * claimed again), a settlement (the delivery is attempted again: a duplicate, which at least once allows) and its
 * attempt's line in the delivery log. Never an event or a delivery: those are recorded with the flush. Selected in
 * a statement that is its own transaction, it applies to that transaction's commit only.
 */
const COMMIT_WITHOUT_WAITING_FOR_THE_DISK = `set_config('synchronous_commit', 'off', true)`;

/**
 * Rows `s` of settlements: the delivery, the lease it was attempted under, the schedule's decision and the attempt
 * (attempted_at as ISO 8601 text, as the delivery log shows it), from $1–$9.
 */
const SETTLEMENT_ROWS = `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::text[], $8::int[], $9::text[])
           AS s(id, lease_token, status, delay_ms, attempted_at, status_code, error, duration_ms, response_body)`;

/** The attempt of row `s` appended to its delivery's log. */
const APPEND_ATTEMPT = `attempt_log = d.attempt_log || jsonb_build_array(jsonb_build_object(
              'attempted_at', s.attempted_at, 'status_code', s.status_code, 'error', s.error, 'duration_ms', s.duration_ms, 'response_body', s.response_body))`;

/** The delivery's next attempt after row `s`'s decision: none once settled for good. */
const NEXT_ATTEMPT = `CASE WHEN s.delay_ms IS NULL THEN NULL ELSE now() + s.delay_ms * interval '1 millisecond' END`;

/**
 * The deliveries of rows `s` (their ids also $1): found by primary key through the array, since joined to `s` alone
 * the planner (which cannot see how few rows `s` has) reads the whole table, every delivery of the last 30 days.
 */
const DELIVERIES_OF_S = 'FROM s WHERE d.id = ANY ($1::text[]) AND d.id = s.id';

/** $1–$9 of SETTLEMENT_ROWS. */
const settlementColumns = (settlements: readonly Settlement[]) => [
  settlements.map((s) => s.delivery.id), settlements.map((s) => s.delivery.lease_token), settlements.map((s) => s.decision.status),
  settlements.map((s) => (s.decision.status === 'pending' ? s.decision.delayMs : null)),
  settlements.map((s) => s.attempt.attempted_at.toISOString()), settlements.map((s) => s.attempt.status_code), settlements.map((s) => s.attempt.error),
  settlements.map((s) => s.attempt.duration_ms), settlements.map((s) => s.attempt.response_body),
];

export class DeliveriesStore {
  constructor(private readonly dataSource: DataSource, private readonly settings: DeliveriesSettings) {}

  /**
   * A statement sent straight to the pool (no TypeORM layer), unnamed, so PostgreSQL plans it with its parameters
   * and the table as it is now. A named statement's generic plan, cached while the table held a few hundred rows,
   * went on reading every delivery by sequential scan once it held thousands (30 ms per settlement at 16,000).
   */
  private async run<T>(text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    return (await pool.query({ text, values })).rows as T[];
  }

  /**
   * Leases up to `limit` due deliveries, oldest first, never more than `perEndpoint` attempts in flight per
   * endpoint: its leased deliveries, less those of `answered` (the caller's, whose POST has its answer and whose
   * settlement is not committed yet: still leased, so never attempted again meanwhile, but no longer in flight). Each
   * enabled endpoint with something due is looked at through its own index entries (its leased count, its first
   * due deliveries), so the cost follows the endpoints, not the backlog.
   */
  async claim(limit: number, perEndpoint: number, leaseToken: string, leaseMs: number, answered: readonly string[] = []): Promise<LeasedDelivery[]> {
    if (limit <= 0) return [];
    return this.run(
      `WITH picked AS (
         -- Each enabled endpoint's first due deliveries, as many as its room under the cap: read through its own
         -- entries of the pending-by-due-time index (a probe of another index, by creation, walks past every
         -- delivery it has settled), its leased count through the leased index.
         SELECT p.id FROM notifications.endpoints e CROSS JOIN LATERAL (
           SELECT d.id, d.next_attempt_at FROM notifications.deliveries d
            WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until <= now())
            ORDER BY d.next_attempt_at, d.id
            LIMIT greatest($2 - (SELECT count(*) FROM notifications.deliveries b
                                  WHERE b.endpoint_id = e.id AND b.lease_until IS NOT NULL AND b.lease_until > now() AND b.status = 'pending'
                                    AND b.id <> ALL ($5::text[])), 0)
         ) p
          WHERE e.enabled
          ORDER BY p.next_attempt_at LIMIT $1
       ), locked AS (
         -- By primary key (an array, not a join the planner may answer with a scan of every delivery).
         SELECT d.id FROM notifications.deliveries d
          WHERE d.id = ANY (ARRAY(SELECT id FROM picked)) AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= now())
          FOR UPDATE SKIP LOCKED
       ), leased AS (
         UPDATE notifications.deliveries d SET lease_token = $3, lease_until = now() + ($4 || ' milliseconds')::interval
          WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
         RETURNING d.id, d.lease_token, d.attempts, d.endpoint_id, d.event_id
       )
       SELECT l.id, l.lease_token, l.attempts, l.endpoint_id, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, l.event_id,
              -- One primary-key read per leased delivery, whatever the planner believes of the events table's size.
              (SELECT ev.body FROM notifications.events ev WHERE ev.id = l.event_id) AS body
         FROM leased l JOIN notifications.endpoints e ON e.id = l.endpoint_id
         CROSS JOIN (SELECT ${COMMIT_WITHOUT_WAITING_FOR_THE_DISK}) AS commit_without_waiting`,
      [limit, perEndpoint, leaseToken, String(leaseMs), answered],
    );
  }

  /**
   * Appends each attempt to its delivery's log and, for each delivery whose lease is still the worker's, sets its
   * new state (attempts ending together share one statement and one commit). A worker whose lease expired meanwhile
   * (another may be attempting) records its attempt and changes nothing else. The state's columns are decided on the
   * row as the update finds it, so a lease taken by another worker since the statement began is seen.
   * A success ends its endpoint's failure streak, late or not: the endpoint answered.
   */
  async settle(settlements: readonly Settlement[]): Promise<void> {
    if (settlements.length === 0) return;
    if (settlements.some((s) => s.decision.status === 'failed')) return this.settleWithFailures(settlements);
    await this.run(
      `WITH s AS (${SETTLEMENT_ROWS}), settled AS (
         UPDATE notifications.deliveries d
            SET ${APPEND_ATTEMPT}, updated_at = now(),
                status = CASE WHEN d.lease_token = s.lease_token THEN s.status ELSE d.status END,
                attempts = d.attempts + CASE WHEN d.lease_token = s.lease_token THEN 1 ELSE 0 END,
                next_attempt_at = CASE WHEN d.lease_token = s.lease_token THEN ${NEXT_ATTEMPT} ELSE d.next_attempt_at END,
                lease_until = CASE WHEN d.lease_token = s.lease_token THEN NULL ELSE d.lease_until END,
                lease_token = CASE WHEN d.lease_token = s.lease_token THEN NULL ELSE d.lease_token END
          ${DELIVERIES_OF_S}
         RETURNING d.endpoint_id, s.status
       ), streaks_ended AS (
         UPDATE notifications.endpoints e SET failed_in_a_row = 0, failing_since = NULL
          WHERE e.id IN (SELECT endpoint_id FROM settled WHERE status = 'succeeded') AND e.failed_in_a_row > 0
       )
       SELECT ${COMMIT_WITHOUT_WAITING_FOR_THE_DISK}`,
      settlementColumns(settlements),
    );
  }

  /**
   * With a delivery failed for good the endpoint's failure streak grows and may disable it, recording a
   * webhook_endpoint.disabled event: one transaction, committed with the flush like every event.
   */
  private async settleWithFailures(settlements: readonly Settlement[]): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      // TypeORM answers an UPDATE with [rows, row count].
      const [settledRows]: [Array<{ id: string }>, number] = await em.query(
        `WITH s AS (${SETTLEMENT_ROWS})
         UPDATE notifications.deliveries d
            SET ${APPEND_ATTEMPT}, status = s.status, attempts = d.attempts + 1, lease_token = NULL, lease_until = NULL, updated_at = now(),
                next_attempt_at = ${NEXT_ATTEMPT}
          ${DELIVERIES_OF_S} AND d.lease_token = s.lease_token
         RETURNING d.id`,
        settlementColumns(settlements),
      );
      const settled = new Set(settledRows.map((row) => row.id));
      const late = settlements.filter((s) => !settled.has(s.delivery.id));
      if (late.length > 0) {
        await em.query(`WITH s AS (${SETTLEMENT_ROWS}) UPDATE notifications.deliveries d SET ${APPEND_ATTEMPT}, updated_at = now() ${DELIVERIES_OF_S}`, settlementColumns(late));
      }
      const kept = settlements.filter((s) => settled.has(s.delivery.id));
      const succeeded = [...new Set(kept.filter((s) => s.decision.status === 'succeeded').map((s) => s.delivery.endpoint_id))];
      if (succeeded.length > 0) {
        await em.query('UPDATE notifications.endpoints SET failed_in_a_row = 0, failing_since = NULL WHERE id = ANY($1) AND failed_in_a_row > 0', [succeeded]);
      }
      for (const failed of kept.filter((s) => s.decision.status === 'failed')) await this.countFailure(em, failed.delivery.endpoint_id);
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
