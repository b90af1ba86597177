import { Injectable } from '@nestjs/common';
import type { OutboundAttemptView, OutboundDeliveryView } from '@voice/contracts';
import { DataSource } from 'typeorm';
import type { DeliveryListParams } from './delivery-log.rules.js';

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: OutboundDeliveryView['event_type'];
  status: OutboundDeliveryView['status'];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'd.id, d.endpoint_id, d.event_id, ev.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.created_at, d.updated_at';

const toView = (row: DeliveryRow): OutboundDeliveryView => ({
  id: row.id,
  endpoint_id: row.endpoint_id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempt_count: row.attempts,
  next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** The delivery log of an endpoint; every statement names the account and the endpoint. */
@Injectable()
export class DeliveryLogStore {
  constructor(private readonly dataSource: DataSource) {}

  async endpointExists(accountId: string, endpointId: string): Promise<boolean> {
    const rows = await this.dataSource.query('SELECT 1 FROM notifications.endpoints WHERE account_id = $1 AND id = $2', [accountId, endpointId]);
    return rows.length > 0;
  }

  async page(accountId: string, endpointId: string, params: DeliveryListParams): Promise<{ items: OutboundDeliveryView[]; total: number }> {
    const status = params.status ?? null;
    const rows: DeliveryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM notifications.deliveries d JOIN notifications.events ev ON ev.id = d.event_id
        WHERE d.account_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.status = $3)
        ORDER BY d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
      [accountId, endpointId, status, params.per_page, (params.page - 1) * params.per_page],
    );
    const [{ n }] = await this.dataSource.query(
      'SELECT count(*)::int AS n FROM notifications.deliveries d WHERE d.account_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.status = $3)',
      [accountId, endpointId, status],
    );
    return { items: rows.map(toView), total: n };
  }

  async find(accountId: string, endpointId: string, deliveryId: string): Promise<(OutboundDeliveryView & { attempts: OutboundAttemptView[] }) | undefined> {
    // The attempts are the delivery's log, in the order made (attempted_at stored as the API shows it).
    const rows: Array<DeliveryRow & { attempt_log: OutboundAttemptView[] }> = await this.dataSource.query(
      `SELECT ${COLUMNS}, d.attempt_log FROM notifications.deliveries d JOIN notifications.events ev ON ev.id = d.event_id
        WHERE d.account_id = $1 AND d.endpoint_id = $2 AND d.id = $3`,
      [accountId, endpointId, deliveryId],
    );
    if (rows.length === 0) return undefined;
    return { ...toView(rows[0]), attempts: rows[0].attempt_log };
  }

  /**
   * A new attempt now, whatever the delivery's state; one being attempted right now (leased) is left to that
   * attempt. False when the account's endpoint has no such delivery.
   */
  async resend(accountId: string, endpointId: string, deliveryId: string): Promise<boolean> {
    const rows = await this.dataSource.query(
      `WITH found AS (SELECT id FROM notifications.deliveries WHERE account_id = $1 AND endpoint_id = $2 AND id = $3),
       queued AS (
         UPDATE notifications.deliveries d SET status = 'pending', next_attempt_at = now(), updated_at = now()
           FROM found WHERE d.id = found.id AND (d.lease_until IS NULL OR d.lease_until <= now())
       )
       SELECT id FROM found`,
      [accountId, endpointId, deliveryId],
    );
    return rows.length > 0;
  }

  /** Every failed delivery of the endpoint created since then is attempted again now; how many. */
  async recover(accountId: string, endpointId: string, since: Date): Promise<number> {
    const [, affected] = await this.dataSource.query(
      `UPDATE notifications.deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
        WHERE account_id = $1 AND endpoint_id = $2 AND status = 'failed' AND created_at >= $3`,
      [accountId, endpointId, since],
    );
    return affected;
  }
}
