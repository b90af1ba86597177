import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AuditAction } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { DATA_SOURCE } from '../tokens.js';
import type { AuditEventView } from './audit-event.view.js';
import type { AuditFilters } from './audit-events.params.js';
import type { AuditEntry } from './audit.rules.js';

export const newAuditEventId = () => `aud_${randomBytes(12).toString('hex')}`;

interface AuditRow {
  id: string;
  action: AuditAction;
  actor_type: 'api_key' | 'admin_token' | 'system';
  actor_key_id: string | null;
  actor_name: string | null;
  target_id: string | null;
  changed_fields: string[] | null;
  request_id: string | null;
  client_address: string | null;
  created_at: Date;
}

function toView(row: AuditRow): AuditEventView {
  const actor: AuditEventView['actor'] =
    row.actor_type === 'api_key' ? { type: 'api_key', key_id: row.actor_key_id!, name: row.actor_name } : { type: row.actor_type };
  return {
    id: row.id,
    action: row.action,
    actor,
    target_id: row.target_id,
    changed_fields: row.changed_fields,
    request_id: row.request_id,
    client_address: row.client_address,
    created_at: row.created_at.toISOString(),
  };
}

/** Every statement of gateway.audit_events: append (never twice from one source), the filtered page, the sweep. */
@Injectable()
export class AuditEventsStore {
  constructor(@Inject(DATA_SOURCE) private readonly db: DataSource) {}

  /** One transaction of the gateway's database: a change of the gateway's own and its entry commit together. */
  transaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return inTransaction(this.db, work);
  }

  /** Appends the entries in one statement; an entry whose source_id is already there is skipped. */
  async append(entries: readonly AuditEntry[], runner?: QueryRunner): Promise<void> {
    if (entries.length === 0) return;
    await (runner ?? this.db).query(
      `INSERT INTO gateway.audit_events
         (id, account_id, action, actor_type, actor_key_id, target_id, changed_fields, request_id, client_address, source_id, created_at)
       SELECT e.id, e.account_id, e.action, e.actor_type, e.actor_key_id, e.target_id,
              CASE WHEN e.changed_fields IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(e.changed_fields)) END,
              e.request_id, e.client_address, e.source_id, coalesce(e.occurred_at, clock_timestamp())
         FROM jsonb_to_recordset($1::jsonb) AS e(
           id text, account_id text, action text, actor_type text, actor_key_id text, target_id text, changed_fields jsonb,
           request_id text, client_address text, source_id text, occurred_at timestamptz)
       ON CONFLICT (source_id) DO NOTHING`,
      [
        JSON.stringify(
          entries.map((e) => ({
            id: newAuditEventId(),
            account_id: e.account_id,
            action: e.action,
            actor_type: e.actor.type,
            actor_key_id: e.actor.type === 'api_key' ? e.actor.key_id : null,
            target_id: e.target_id,
            changed_fields: e.changed_fields,
            request_id: e.request_id,
            client_address: e.client_address,
            source_id: e.source_id ?? null,
            occurred_at: e.occurred_at ?? null,
          })),
        ),
      ],
    );
  }

  /** One page of the account's entries, newest first, with the total of the filtered list (one snapshot). */
  async list(accountId: string, filters: AuditFilters, limit: number, offset: number): Promise<{ items: AuditEventView[]; total: number }> {
    const where = ['e.account_id = $1'];
    const params: unknown[] = [accountId];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (filters.action !== undefined) add((p) => `e.action = ${p}`, filters.action);
    if (filters.actorKeyId !== undefined) add((p) => `e.actor_key_id = ${p}`, filters.actorKeyId);
    if (filters.targetId !== undefined) add((p) => `e.target_id = ${p}`, filters.targetId);
    if (filters.createdAfter !== undefined) add((p) => `e.created_at >= ${p}::timestamptz`, filters.createdAfter);
    if (filters.createdBefore !== undefined) add((p) => `e.created_at <= ${p}::timestamptz`, filters.createdBefore);
    params.push(limit, offset);
    const found: Array<AuditRow & { total: number }> = await this.db.query(
      `SELECT t.total, p.*
         FROM (SELECT count(*)::int AS total FROM gateway.audit_events e WHERE ${where.join(' AND ')}) t
         LEFT JOIN LATERAL (
           SELECT e.id, e.action, e.actor_type, e.actor_key_id, k.name AS actor_name, e.target_id, e.changed_fields,
                  e.request_id, e.client_address, e.created_at
             FROM gateway.audit_events e LEFT JOIN gateway.api_keys k ON k.id = e.actor_key_id
            WHERE ${where.join(' AND ')}
            ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}) p ON true
        ORDER BY p.created_at DESC, p.id DESC`,
      params,
    );
    return { total: found[0]?.total ?? 0, items: found.filter((r) => r.id !== null).map(toView) };
  }

  /** Deletes entries older than the retention period; how many went. */
  async prune(retentionDays: number): Promise<number> {
    const rows = (await this.db.query(
      `WITH gone AS (DELETE FROM gateway.audit_events WHERE created_at < now() - make_interval(days => $1) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [retentionDays],
    )) as Array<{ n: number }>;
    return rows[0]?.n ?? 0;
  }
}
