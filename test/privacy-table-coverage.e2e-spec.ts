import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openDatabase } from '@voice/service-kit';
import { AGENTS_SCHEMA, agentsMigrations } from '../apps/agents-service/src/database/agents-database.js';
import { openGatewayDatabase } from '../apps/api-gateway/src/database/gateway-database.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../apps/conversations-service/src/database/conversations-database.js';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../apps/notifications-service/src/database/notifications-database.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

/** The declared coverage: one row per table of every service's schema (docs/privacy-tables.md). */
const COVERAGE_FILE = resolve('docs/privacy-tables.md');

interface CoverageRow {
  table: string;
  conversationData: string;
  redaction: string;
  retention: string;
  erasure: string;
}

/** The rows of the file's table whose first cell is a `schema.table`. */
export function readCoverage(markdown: string): CoverageRow[] {
  const rows: CoverageRow[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());
    const table = /^`([a-z_]+\.[a-z_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (!table) continue;
    const [, conversationData = '', redaction = '', retention = '', erasure = ''] = cells;
    rows.push({ table, conversationData, redaction, retention, erasure });
  }
  return rows;
}

/** What is wrong with a row: a table with conversation data says how each of the three reaches it; one without says why. */
export function rowProblem(row: CoverageRow): string | undefined {
  if (/^yes\b/i.test(row.conversationData)) {
    const missing = (['redaction', 'retention', 'erasure'] as const).filter((what) => row[what] === '' || row[what] === '—');
    return missing.length > 0 ? `${row.table} holds conversation data but does not say how ${missing.join(', ')} reach it` : undefined;
  }
  if (/^no\b.{10,}/i.test(row.conversationData)) return undefined;
  return `${row.table}: "conversation data" must be "yes" (and how each control reaches it) or "no: <why>"`;
}

/**
 * Every table that holds what a caller said or who called must be reached by redaction, retention and erasure, or a
 * caller's data outlives their request in a place nobody thought of. So every table of every service's schema, as
 * the migrations leave them in a fresh database, must be named in docs/privacy-tables.md: a table added later
 * without saying how the controls reach it (or why it holds no conversation data) fails here.
 */
describe('privacy coverage of every table', () => {
  let db: TestDatabase;
  let tables: string[];

  beforeAll(async () => {
    db = await createTestDatabase('privacytables');
    const opened = [
      await openDatabase({ url: db.url, schema: AGENTS_SCHEMA, migrations: agentsMigrations, poolSize: 2 }),
      await openDatabase({ url: db.url, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 2 }),
      await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations, poolSize: 2 }),
      await openGatewayDatabase(db.url),
    ];
    const { rows } = await db.query<{ name: string }>(
      // Tables, partitioned tables and materialised views; a partition is its parent's (what reaches the parent's
      // rows reaches it), so it is not named on its own.
      `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p', 'm') AND NOT c.relispartition
       ORDER BY name`,
      [[AGENTS_SCHEMA, CONVERSATIONS_SCHEMA, NOTIFICATIONS_SCHEMA, 'gateway']],
    );
    tables = rows.map((row) => row.name);
    for (const source of opened) await source.destroy();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('names every table of every schema, and no table that does not exist', () => {
    const declared = readCoverage(readFileSync(COVERAGE_FILE, 'utf8')).map((row) => row.table);
    expect(tables.length).toBeGreaterThan(20);
    expect({ undeclared: tables.filter((t) => !declared.includes(t)), gone: declared.filter((t) => !tables.includes(t)) }).toEqual({ undeclared: [], gone: [] });
  });

  it('says for each table with conversation data how redaction, retention and erasure reach it, and for the others why they hold none', () => {
    const rows = readCoverage(readFileSync(COVERAGE_FILE, 'utf8'));
    expect(rows.map(rowProblem).filter(Boolean)).toEqual([]);
    expect(new Set(rows.map((row) => row.table)).size).toBe(rows.length);
  });

  it('the checks themselves: a missing control or a bare "no" is a problem', () => {
    const row = { table: 'x.t', conversationData: 'yes', redaction: 'at ingest', retention: 'swept', erasure: 'deleted' };
    expect(rowProblem(row)).toBeUndefined();
    expect(rowProblem({ ...row, erasure: '—' })).toContain('erasure');
    expect(rowProblem({ ...row, conversationData: 'no' })).toBeDefined();
    expect(rowProblem({ ...row, conversationData: 'no: API keys, hashed' })).toBeUndefined();
  });
});
