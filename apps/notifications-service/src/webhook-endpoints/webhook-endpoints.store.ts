import { Injectable } from '@nestjs/common';
import type { OutboundEventType, WebhookEndpointView } from '@voice/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import type { EndpointFields } from './webhook-endpoint.rules.js';

export interface EndpointRecord extends EndpointFields {
  id: string;
  account_id: string;
  disabled_reason: string | null;
  secret_sealed: string;
  secret_hint: string;
  created_at: Date;
  updated_at: Date;
}

interface EndpointRow extends Omit<EndpointRecord, 'event_types'> {
  event_types: OutboundEventType[] | null;
  succeeded?: string;
  failed?: string;
}

const COLUMNS = 'e.id, e.account_id, e.url, e.description, e.event_types, e.agent_ids, e.enabled, e.disabled_reason, e.secret_sealed, e.secret_hint, e.created_at, e.updated_at';
/** The view's delivery counts: deliveries settled in the last 24 h. */
const COUNTS = `
  (SELECT count(*) FROM notifications.deliveries d WHERE d.endpoint_id = e.id AND d.status = 'succeeded' AND d.updated_at > now() - interval '24 hours') AS succeeded,
  (SELECT count(*) FROM notifications.deliveries d WHERE d.endpoint_id = e.id AND d.status = 'failed' AND d.updated_at > now() - interval '24 hours') AS failed`;

export function toEndpointView(row: EndpointRecord & { succeeded?: string | number; failed?: string | number }): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    agent_ids: row.agent_ids,
    enabled: row.enabled,
    status: row.enabled ? 'active' : 'disabled',
    disabled_reason: row.enabled ? null : row.disabled_reason,
    secret_hint: row.secret_hint,
    deliveries_last_24h: { succeeded: Number(row.succeeded ?? 0), failed: Number(row.failed ?? 0) },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The endpoints table; every read and write names the account, so an id of another account is simply not found. */
@Injectable()
export class WebhookEndpointsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in a transaction holding the account's endpoint lock, so the quota is checked against a stable count. */
  transaction<T>(accountId: string, work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('notifications-endpoints:' || $1))`, [accountId]);
      return work(em);
    });
  }

  async count(em: EntityManager, accountId: string): Promise<number> {
    const [row] = await em.query('SELECT count(*)::int AS n FROM notifications.endpoints WHERE account_id = $1', [accountId]);
    return row.n;
  }

  async insert(em: EntityManager, record: EndpointRecord): Promise<void> {
    await em.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, description, event_types, agent_ids, enabled, disabled_reason, secret_sealed, secret_hint, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
      [record.id, record.account_id, record.url, record.description, record.event_types, record.agent_ids, record.enabled, record.disabled_reason, record.secret_sealed, record.secret_hint, record.created_at],
    );
  }

  async find(accountId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<(EndpointRecord & { succeeded: string; failed: string }) | undefined> {
    const rows: EndpointRow[] = await em.query(`SELECT ${COLUMNS}, ${COUNTS} FROM notifications.endpoints e WHERE e.account_id = $1 AND e.id = $2`, [accountId, id]);
    return rows[0] as (EndpointRecord & { succeeded: string; failed: string }) | undefined;
  }

  async page(accountId: string, page: number, perPage: number): Promise<{ rows: EndpointRecord[]; total: number }> {
    const rows: EndpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS}, ${COUNTS} FROM notifications.endpoints e WHERE e.account_id = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2 OFFSET $3`,
      [accountId, perPage, (page - 1) * perPage],
    );
    const [{ n }] = await this.dataSource.query('SELECT count(*)::int AS n FROM notifications.endpoints WHERE account_id = $1', [accountId]);
    return { rows: rows as EndpointRecord[], total: n };
  }

  async update(em: EntityManager, record: EndpointRecord): Promise<void> {
    await em.query(
      // Enabling a disabled endpoint starts its failure streak afresh.
      `UPDATE notifications.endpoints SET url = $3, description = $4, event_types = $5, agent_ids = $6, enabled = $7, disabled_reason = $8, updated_at = $9,
              failed_in_a_row = CASE WHEN $7 AND NOT enabled THEN 0 ELSE failed_in_a_row END,
              failing_since = CASE WHEN $7 AND NOT enabled THEN NULL ELSE failing_since END
        WHERE account_id = $1 AND id = $2`,
      [record.account_id, record.id, record.url, record.description, record.event_types, record.agent_ids, record.enabled, record.disabled_reason, record.updated_at],
    );
  }

  /** False when the account has no such endpoint. Its deliveries and their attempts go with it. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const [, affected] = await this.dataSource.query('DELETE FROM notifications.endpoints WHERE account_id = $1 AND id = $2', [accountId, id]);
    return affected > 0;
  }

  /** The new current secret; the one it replaces signs too until `previousExpiresAt`. */
  async rotate(em: EntityManager, accountId: string, id: string, secret: { sealed: string; hint: string }, previous: { sealed: string; expiresAt: Date }): Promise<void> {
    await em.query(
      `UPDATE notifications.endpoints SET secret_sealed = $3, secret_hint = $4, previous_secret_sealed = $5, previous_secret_expires_at = $6, updated_at = now()
        WHERE account_id = $1 AND id = $2`,
      [accountId, id, secret.sealed, secret.hint, previous.sealed, previous.expiresAt],
    );
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
