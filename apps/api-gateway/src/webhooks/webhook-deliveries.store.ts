/** All SQL of the webhook log: gateway.webhook_deliveries and gateway.webhook_rejections. */
import { Inject, Injectable } from '@nestjs/common';
import type { VoicePlatform, WebhookDeliveryDetail, WebhookDeliveryListItem, WebhookDeliveryOutcome, WebhookRejections } from '@voice/contracts';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../tokens.js';

/** A delivery as recorded once its outcome is known. */
export interface DeliveryWrite {
  id: string;
  accountId: string;
  integrationId: string;
  platform: VoicePlatform;
  body: Buffer;
  outcome: WebhookDeliveryOutcome;
  reason: string | null;
  eventType: string | null;
  platformCallId: string | null;
  platformAgentId: string | null;
  conversationId: string | null;
  eventIds: string[];
  fingerprint: string | null;
  replayOf: string | null;
}

export interface DeliveryFilters {
  platform?: string;
  outcome?: string;
  conversationId?: string;
  receivedFrom?: string;
  receivedTo?: string;
}

export interface StoredDelivery {
  item: WebhookDeliveryListItem;
  body: Buffer;
}

const LIST_COLUMNS = `id, platform, integration_id, received_at, outcome, reason, event_type, platform_call_id, platform_agent_id,
  conversation_id, event_ids, octet_length(body) AS body_bytes, replay_of, last_replay`;

/** A row as pg returns it: timestamps as Dates, the body's length as a string for bigint-safe counts. */
type DeliveryRow = Omit<WebhookDeliveryListItem, 'received_at' | 'body_bytes'> & { received_at: Date; body_bytes: number | string };

function toItem(row: DeliveryRow): WebhookDeliveryListItem {
  return {
    id: row.id,
    platform: row.platform,
    integration_id: row.integration_id,
    received_at: new Date(row.received_at).toISOString(),
    outcome: row.outcome,
    reason: row.reason,
    event_type: row.event_type,
    platform_call_id: row.platform_call_id,
    platform_agent_id: row.platform_agent_id,
    conversation_id: row.conversation_id,
    event_ids: row.event_ids,
    body_bytes: Number(row.body_bytes),
    replay_of: row.replay_of,
    last_replay: row.last_replay,
  };
}

/** The body as the API shows it: text when the bytes are UTF-8 (they always are for JSON), else base64. */
export function bodyView(body: Buffer): Pick<WebhookDeliveryDetail, 'body' | 'body_encoding'> {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body) ? { body: text, body_encoding: 'utf8' } : { body: body.toString('base64'), body_encoding: 'base64' };
}

@Injectable()
export class WebhookDeliveriesStore {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  /**
   * Records a delivery. With a fingerprint (its call events were mapped and are being queued), the outcome is
   * decided in the same statement: `duplicate` when an accepted delivery of the account already has the
   * fingerprint, or is the delivery this one replays (its stored body may be redacted, so its events' fingerprint
   * differs from the original's), else `accepted` — one round trip, on the hot path of every platform delivery.
   */
  async record(write: DeliveryWrite): Promise<WebhookDeliveryListItem> {
    const rows: DeliveryRow[] = await this.dataSource.query(
      `WITH twin AS (
         SELECT id FROM gateway.webhook_deliveries
          WHERE $13::text IS NOT NULL AND account_id = $2 AND (fingerprint = $13 OR id = $14) AND outcome = 'accepted'
          ORDER BY received_at LIMIT 1)
       INSERT INTO gateway.webhook_deliveries
         (id, account_id, integration_id, platform, body, outcome, reason, event_type, platform_call_id, platform_agent_id,
          conversation_id, event_ids, fingerprint, replay_of)
       SELECT $1, $2, $3, $4, $5,
              CASE WHEN twin.id IS NULL THEN $6 ELSE 'duplicate' END,
              CASE WHEN twin.id IS NULL THEN $7 ELSE 'Its call events were already accepted from delivery ' || twin.id || '.' END,
              $8, $9, $10, $11, $12,
              CASE WHEN twin.id IS NULL THEN $13 END,
              $14
         FROM (SELECT 1) one LEFT JOIN twin ON true
       RETURNING ${LIST_COLUMNS}`,
      [
        write.id, write.accountId, write.integrationId, write.platform, write.body, write.outcome, write.reason, write.eventType,
        write.platformCallId, write.platformAgentId, write.conversationId, write.eventIds, write.fingerprint, write.replayOf,
      ],
    );
    return toItem(rows[0]);
  }

  /** An accepted delivery whose events the stream did not acknowledge after all. */
  async markFailed(id: string, reason: string): Promise<WebhookDeliveryListItem> {
    // TypeORM answers an UPDATE … RETURNING with [rows, affected count].
    const [rows]: [DeliveryRow[], number] = await this.dataSource.query(
      `UPDATE gateway.webhook_deliveries SET outcome = 'failed', reason = $2, fingerprint = NULL WHERE id = $1 RETURNING ${LIST_COLUMNS}`,
      [id, reason],
    );
    return toItem(rows[0]);
  }

  async find(accountId: string, id: string): Promise<StoredDelivery | undefined> {
    const rows: Array<DeliveryRow & { body: Buffer }> = await this.dataSource.query(
      `SELECT ${LIST_COLUMNS}, body FROM gateway.webhook_deliveries WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
    return rows[0] && { item: toItem(rows[0]), body: rows[0].body };
  }

  async noteReplay(accountId: string, id: string, replay: { id: string; outcome: WebhookDeliveryOutcome; at: string }): Promise<void> {
    await this.dataSource.query('UPDATE gateway.webhook_deliveries SET last_replay = $3::jsonb WHERE account_id = $1 AND id = $2', [
      accountId, id, JSON.stringify(replay),
    ]);
  }

  async list(accountId: string, filters: DeliveryFilters, limit: number, offset: number): Promise<{ items: WebhookDeliveryListItem[]; total: number }> {
    const where = ['account_id = $1'];
    const params: unknown[] = [accountId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filters.platform !== undefined) add('platform = ?', filters.platform);
    if (filters.outcome !== undefined) add('outcome = ?', filters.outcome);
    if (filters.conversationId !== undefined) add('conversation_id = ?', filters.conversationId);
    if (filters.receivedFrom !== undefined) add('received_at >= ?::timestamptz', filters.receivedFrom);
    if (filters.receivedTo !== undefined) add('received_at <= ?::timestamptz', filters.receivedTo);
    const condition = where.join(' AND ');
    // Page and total in one statement, so one snapshot (deliveries arrive all the time): a page past the end is one
    // row of nulls beside the total.
    const found: Array<DeliveryRow & { total: number }> = await this.dataSource.query(
      `SELECT t.total, d.* FROM (SELECT count(*)::int AS total FROM gateway.webhook_deliveries WHERE ${condition}) t
         LEFT JOIN LATERAL (
           SELECT ${LIST_COLUMNS} FROM gateway.webhook_deliveries WHERE ${condition}
            ORDER BY received_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}) d ON true
        ORDER BY d.received_at DESC, d.id DESC`,
      [...params, limit, offset],
    );
    return { items: found.filter((r) => r.id !== null).map(toItem), total: found[0]?.total ?? 0 };
  }

  /** One more refused delivery for the integration, counted per minute (no body, no headers). */
  async countRejection(integrationId: string, accountId: string, reason: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO gateway.webhook_rejections (integration_id, account_id, minute, reason, count, last_at)
       VALUES ($1, $2, date_trunc('minute', clock_timestamp()), $3, 1, clock_timestamp())
       ON CONFLICT (integration_id, minute, reason) DO UPDATE SET count = webhook_rejections.count + 1, last_at = EXCLUDED.last_at`,
      [integrationId, accountId, reason],
    );
  }

  async rejections(accountId: string, integrationIds: readonly string[]): Promise<Map<string, WebhookRejections>> {
    const rows: Array<{ integration_id: string; total: number; reason: NonNullable<WebhookRejections['last_rejection']>['reason']; last_at: Date }> =
      await this.dataSource.query(
        `SELECT DISTINCT ON (integration_id) integration_id,
                sum(count) FILTER (WHERE minute > clock_timestamp() - interval '24 hours') OVER (PARTITION BY integration_id) AS total,
                reason, last_at
           FROM gateway.webhook_rejections
          WHERE account_id = $1 AND integration_id = ANY($2::text[])
          ORDER BY integration_id, last_at DESC`,
        [accountId, integrationIds],
      );
    return new Map(
      rows.map((row) => [
        row.integration_id,
        { rejected_deliveries_24h: Number(row.total ?? 0), last_rejection: { reason: row.reason, at: new Date(row.last_at).toISOString() } },
      ]),
    );
  }

  /** Rows past the retention period go, bodies with them; rejection counts after a day and a bit. */
  async prune(retentionDays: number): Promise<{ deliveries: number }> {
    const deleted: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM gateway.webhook_deliveries WHERE received_at < clock_timestamp() - make_interval(days => $1)`,
      [retentionDays],
    );
    await this.dataSource.query(`DELETE FROM gateway.webhook_rejections WHERE minute < clock_timestamp() - interval '25 hours'`);
    return { deliveries: Array.isArray(deleted) ? Number(deleted[1] ?? 0) : 0 };
  }
}
