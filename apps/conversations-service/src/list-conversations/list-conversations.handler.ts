import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ConversationListItem, PageResult } from '@voice/contracts';
import { ServiceFailure } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { toIso } from '../conversation/conversation.views.js';
import { parseListQuery } from './list-conversations.params.js';
import { buildListSql, type ListSql } from './list-conversations.sql.js';
import { ListConversations } from './list-conversations.query.js';

interface Row {
  id: string;
  agent_id: string;
  agent_name: string | null;
  caller_number: string | null;
  status: ConversationListItem['status'];
  start_time: Date;
  end_time: Date | null;
  duration: number;
  sentiment: ConversationListItem['sentiment'];
  outcome: string | null;
  topics: string[];
  has_recording: boolean;
  has_transcript: boolean;
  summary: string | null;
  created_at: Date;
}

/**
 * Straight from the read model (no cache, so an acknowledged event shows at
 * once). The page's ids are found first on the narrow indexes and only those
 * rows are read in full; agent_name is joined now so a rename shows immediately.
 */
@QueryHandler(ListConversations)
export class ListConversationsHandler implements IQueryHandler<ListConversations, PageResult<ConversationListItem>> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'dataSource' | 'tuning'>) {}

  async execute({ accountId, query }: ListConversations): Promise<PageResult<ConversationListItem>> {
    const parsed = parseListQuery(query);
    if (!parsed.ok) throw new ServiceFailure(parsed.problem);
    const f = parsed.filter;
    const sql = buildListSql(accountId, f);
    const offset = (f.page - 1) * f.per_page;
    const result = (items: Row[], total: number): PageResult<ConversationListItem> => ({ items: items.map(toItem), total, page: f.page, per_page: f.per_page });

    // Shallow pages: page and total in parallel. Deeper: see below.
    if (offset < this.ctx.tuning.deepPageOffset) {
      const db = this.ctx.dataSource;
      const [rows, total] = await Promise.all([readPage(db, sql, sql.orderBy, f.per_page, offset), countMatches(db, sql, accountId)]);
      return result(rows, total);
    }
    // Deep pages: OFFSET costs what it skips, so read from whichever end is nearer.
    // That needs the total first, and both reads in one snapshot to agree.
    return inSnapshot(this.ctx.dataSource, async (runner) => {
      const total = await countMatches(runner, sql, accountId);
      if (offset >= total) return result([], total);
      const limit = Math.min(f.per_page, total - offset);
      const rows = offset > total / 2
        ? await readPage(runner, sql, sql.reverseOrderBy, limit, total - offset - limit)
        : await readPage(runner, sql, sql.orderBy, limit, offset);
      return result(rows, total);
    });
  }
}

function readPage(db: DataSource | QueryRunner, sql: ListSql, innerOrder: string, limit: number, offset: number): Promise<Row[]> {
  const at = sql.params.length + 1;
  return db.query(
    `SELECT c.id, c.agent_id, a.name AS agent_name, c.caller_number, c.status, c.start_time, c.end_time, c.duration,
            c.sentiment, c.outcome, c.topics, c.has_recording, c.has_transcript, c.summary, c.created_at
       FROM (SELECT c.id FROM conversations.conversations c WHERE ${sql.where} ORDER BY ${innerOrder}
              LIMIT $${at} OFFSET $${at + 1}) page
       JOIN conversations.conversations c ON c.account_id = $1 AND c.id = page.id
       LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id
      ORDER BY ${sql.orderBy}`,
    [...sql.params, limit, offset],
  );
}

/** Exact total; the unfiltered one is kept per account by the projection. */
async function countMatches(db: DataSource | QueryRunner, sql: ListSql, accountId: string): Promise<number> {
  if (sql.topicOnly !== undefined) {
    const [{ total }] = await db.query(
      `SELECT count(*)::bigint AS total FROM conversations.conversation_topics WHERE account_id = $1 AND topic = $2`,
      [accountId, sql.topicOnly],
    );
    return Number(total);
  }
  if (sql.searchOnly !== undefined) {
    const [{ total }] = await db.query(
      `SELECT count(*)::bigint AS total FROM conversations.conversation_search WHERE account_id = $1 AND search_text LIKE $2 ESCAPE '\\'`,
      [accountId, sql.searchOnly],
    );
    return Number(total);
  }
  if (sql.unfiltered) {
    const [row] = await db.query(`SELECT conversations FROM conversations.account_totals WHERE account_id = $1`, [accountId]);
    return Number(row?.conversations ?? 0);
  }
  const [{ total }] = await db.query(`SELECT count(*)::bigint AS total FROM conversations.conversations c WHERE ${sql.where}`, sql.params);
  return Number(total);
}

async function inSnapshot<T>(dataSource: DataSource, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const value = await work(runner);
    await runner.query('COMMIT');
    return value;
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}

function toItem(r: Row): ConversationListItem {
  return {
    id: r.id,
    agent_id: r.agent_id,
    agent_name: r.agent_name,
    caller_number: r.caller_number,
    status: r.status,
    start_time: toIso(r.start_time),
    end_time: r.end_time ? toIso(r.end_time) : null,
    duration: r.duration,
    sentiment: r.sentiment,
    outcome: r.outcome,
    topics: r.topics,
    has_recording: r.has_recording,
    has_transcript: r.has_transcript,
    summary: r.summary,
    created_at: toIso(r.created_at),
  };
}
