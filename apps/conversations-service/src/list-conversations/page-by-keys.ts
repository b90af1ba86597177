/**
 * A page read by its rows' sort keys, as the account's columns in memory name them (pages-in-memory.ts): a few
 * lookups on the start-time index instead of finding every match of a substring search. The rows at those keys
 * are then checked against every filter in SQL (the search included), ordered, and the first key's rows that
 * come before the page are skipped.
 */
import type { QueryRunner } from 'typeorm';
import { isoOfMicros } from '../conversation/conversation.views.js';
import type { ConversationListFilter } from './list-conversations.params.js';
import { buildListSql, readPage, type ConversationPage } from './list-conversations.store.js';
import type { PageKeys } from './pages-in-memory.js';

export async function readPageByKeys(db: QueryRunner, accountId: string, f: ConversationListFilter, page: PageKeys): Promise<ConversationPage> {
  if (page.keys.length === 0) return { rows: [], total: page.total };
  const sql = buildListSql(accountId, f);
  const at = sql.params.length;
  const starts = `$${at + 1}::timestamptz[]`;
  const byDuration = f.sort_by === 'duration';
  const params = [...sql.params, page.keys.map((k) => isoOfMicros(k.start_us)), ...(byDuration ? [page.keys.map((k) => k.duration)] : [])];
  // OFFSET 0 keeps the planner on the start-time index: with the search's LIKE beside it, it could otherwise
  // choose the trigram index and recheck every match.
  const from = `(SELECT * FROM conversations.conversations c WHERE c.account_id = $1 AND c.start_time = ANY(${starts}) OFFSET 0) c`;
  const where = byDuration ? `${sql.where} AND (c.duration, c.start_time) IN (SELECT * FROM unnest($${at + 2}::int[], ${starts}))` : sql.where;
  const limit = Math.min(f.per_page, page.total - (f.page - 1) * f.per_page);
  const rows = await readPage(db, { ...sql, params, where, from, narrow: undefined }, false, limit, page.skip);
  return { rows, total: page.total };
}
