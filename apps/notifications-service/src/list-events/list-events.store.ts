import { Injectable } from '@nestjs/common';
import type { OutboundEvent } from '@voice/contracts';
import { DataSource } from 'typeorm';
import type { EventListParams } from './list-events.rules.js';

/** The account's recorded events, newest first; each is the very body its deliveries send. */
@Injectable()
export class ListEventsStore {
  constructor(private readonly dataSource: DataSource) {}

  async page(accountId: string, params: EventListParams): Promise<{ items: OutboundEvent[]; total: number }> {
    const where = `account_id = $1 AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR conversation_id = $3) AND ($4::text IS NULL OR agent_id = $4)
      AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at < $6)`;
    const filters = [accountId, params.type ?? null, params.conversation_id ?? null, params.agent_id ?? null, params.created_after ?? null, params.created_before ?? null];
    const rows: Array<{ body: string }> = await this.dataSource.query(
      `SELECT body FROM notifications.events WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $7 OFFSET $8`,
      [...filters, params.per_page, (params.page - 1) * params.per_page],
    );
    const [{ n }] = await this.dataSource.query(`SELECT count(*)::int AS n FROM notifications.events WHERE ${where}`, filters);
    return { items: rows.map((row) => JSON.parse(row.body) as OutboundEvent), total: n };
  }

  async find(accountId: string, eventId: string): Promise<OutboundEvent | undefined> {
    const rows: Array<{ body: string }> = await this.dataSource.query('SELECT body FROM notifications.events WHERE account_id = $1 AND id = $2', [accountId, eventId]);
    return rows[0] ? (JSON.parse(rows[0].body) as OutboundEvent) : undefined;
  }
}
