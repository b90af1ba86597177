import { Injectable } from '@nestjs/common';
import { ReadRouter } from '@voice/service-kit';
import type { DataSource } from 'typeorm';
import { AGENT_READ_COLUMNS, rowToRecord, type AgentRecord } from '../agent/agent.store.js';
import type { ListAgentsParams } from './list-agents.params.js';

/** The paged, filtered read of the account's live agents, on the read replica when it may serve the account. */
@Injectable()
export class ListAgentsStore {
  constructor(private readonly reads: ReadRouter) {}

  page(accountId: string, params: ListAgentsParams): Promise<{ agents: AgentRecord[]; total: number }> {
    return this.reads.read(accountId, (db) => this.pageOn(db, accountId, params));
  }

  private async pageOn(db: DataSource, accountId: string, params: ListAgentsParams): Promise<{ agents: AgentRecord[]; total: number }> {
    const where = [`account_id = $1`, `status <> 'deleted'`];
    const values: unknown[] = [accountId];
    if (params.status) {
      values.push(params.status);
      where.push(`status = $${values.length}`);
    }
    if (params.voice_platform) {
      values.push(params.voice_platform);
      where.push(`voice_platform = $${values.length}`);
    }
    if (params.search) {
      // strpos matches literally, so % and _ in the search need no escaping.
      values.push(params.search.toLowerCase());
      where.push(`strpos(lower(name), $${values.length}) > 0`);
    }
    const filter = where.join(' AND ');
    const [{ total }] = await db.query(`SELECT count(*)::int AS total FROM agents.agents WHERE ${filter}`, values);
    const offset = (params.page - 1) * params.per_page;
    const rows =
      offset >= total
        ? []
        : await db.query(
            `SELECT ${AGENT_READ_COLUMNS} FROM agents.agents WHERE ${filter}
              ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
            [...values, params.per_page, offset],
          );
    return { agents: rows.map(rowToRecord), total };
  }
}
