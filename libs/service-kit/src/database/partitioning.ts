import { setTimeout as sleep } from 'node:timers/promises';
import { quoteIdent } from './database.js';
import { classifyFailure } from './pg-errors.js';

/** What the partitioning steps need of a connection: a TypeORM QueryRunner or a pg client. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/** A table and the layout it is to have: partitioned by the hash of a column, or (without `hashPartitions`) one plain table. */
export interface TableLayout {
  schema: string;
  table: string;
  /** The column whose hash picks the partition, and how many partitions; every primary key and unique constraint must include the column. */
  hashPartitions?: { column: string; partitions: number };
  /**
   * Columns of the primary key to give the table in its new layout, when they differ: a partitioned table's keys
   * must include its partition column, so the event store's `(global_position)` becomes `(account_id, global_position)`.
   */
  primaryKey?: string[];
}

/** A table copied into its new layout beside itself, waiting for the swap. */
export interface TableCopy {
  layout: TableLayout;
  shape: TableShape;
}

/** How long the move waits for the tables at each try, and how many tries, before it gives up (the migration fails and is retried at the next start). */
const LOCK_WAIT_MS = 2_000;
const LOCK_TRIES = 30;

/** The name of one hash partition: `conversations_h07`. */
export function hashPartitionName(table: string, remainder: number): string {
  return `${table}_h${String(remainder).padStart(2, '0')}`;
}

/**
 * Move tables into new layouts, keeping their names, rows, columns (defaults, collations, identity and its
 * position), constraints, indexes and triggers. For a migration: it runs in the caller's transaction. Writers of the
 * tables wait from the start to the commit (nothing is written into a table being copied, nothing lost: a waiting
 * write goes to the new table); readers read the old tables while every copy is built, and wait only for the swap.
 */
export async function moveTables(q: SqlRunner, layouts: TableLayout[]): Promise<void> {
  await swapInCopies(q, await copyTables(q, layouts));
}

/** The first half of moveTables: every table taken for writes and copied into its new layout beside itself. */
export async function copyTables(q: SqlRunner, layouts: TableLayout[]): Promise<TableCopy[]> {
  for (const { hashPartitions } of layouts) {
    const partitions = hashPartitions?.partitions;
    if (partitions !== undefined && (!Number.isInteger(partitions) || partitions < 2 || partitions > 256)) {
      throw new Error(`partitions must be an integer from 2 to 256, not ${partitions}`);
    }
  }
  await takeForWrites(q, layouts.map(({ schema, table }) => qualified(schema, table)));
  const copies: TableCopy[] = [];
  for (const layout of layouts) copies.push({ layout, shape: await copyTable(q, layout) });
  return copies;
}

/** The second half: each old table dropped and its copy given its names. Readers wait for this part alone. */
export async function swapInCopies(q: SqlRunner, copies: TableCopy[]): Promise<void> {
  for (const { layout, shape } of copies) await swapIn(q, layout, shape);
}

/**
 * SHARE ROW EXCLUSIVE on every table, all or none: writers that already hold one of them (a transaction writing
 * the event store, then the read model; an erasure, the other way round) must not deadlock with the move. Each try
 * waits at most LOCK_WAIT_MS and lets go of what it took when it fails, so writers go on and the next try finds them done.
 */
async function takeForWrites(q: SqlRunner, tables: string[]): Promise<void> {
  const [{ previous }] = await q.query(`SELECT current_setting('lock_timeout') AS previous`);
  for (let attempt = 1; ; attempt += 1) {
    await q.query('SAVEPOINT take_tables');
    try {
      await q.query(`SELECT set_config('lock_timeout', $1, true)`, [`${LOCK_WAIT_MS}ms`]);
      await q.query(`LOCK TABLE ${tables.join(', ')} IN SHARE ROW EXCLUSIVE MODE`);
      await q.query(`SELECT set_config('lock_timeout', $1, true)`, [previous]);
      await q.query('RELEASE SAVEPOINT take_tables');
      return;
    } catch (err) {
      // A deadlock or the lock wait running out: the race pg-errors calls lost, which another try can win.
      if (classifyFailure(err) !== 'lost_race' || attempt >= LOCK_TRIES) throw err;
      await q.query('ROLLBACK TO SAVEPOINT take_tables');
      await sleep(Math.min(1_000, 50 * attempt));
    }
  }
}

interface TableShape {
  constraints: { name: string; definition: string; primary: boolean; indexed: boolean }[];
  indexes: { name: string; definition: string }[];
  triggers: string[];
  identityColumns: { column: string; sequence: string }[];
}

async function shapeOf(q: SqlRunner, relation: string): Promise<TableShape> {
  const constraints = await q.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition, contype = 'p' AS primary, contype IN ('p', 'u', 'x') AS indexed
       FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'c', 'x', 'f') ORDER BY contype = 'f', contype, conname`,
    [relation],
  );
  // Indexes of their own only: those behind a constraint come back with it.
  const indexes = await q.query(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
      ORDER BY c.relname`,
    [relation],
  );
  const triggers = await q.query(
    `SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname`,
    [relation],
  );
  const identity = await q.query(
    `SELECT attname AS column, (parse_ident(pg_get_serial_sequence($1, attname)))[2] AS sequence
       FROM pg_attribute WHERE attrelid = $1::regclass AND attidentity <> '' AND NOT attisdropped ORDER BY attnum`,
    [relation],
  );
  return { constraints, indexes, triggers: triggers.map((row: { definition: string }) => row.definition), identityColumns: identity };
}

/** An index's or trigger's definition, made for the next table (and, for an index, under a name of its own until the swap). */
function retarget(definition: string, from: string, to: string, pattern: RegExp, name?: string): string {
  const match = pattern.exec(definition);
  if (!match || match.groups?.table !== from) throw new Error(`cannot move to ${to}: ${definition}`);
  return definition.replace(pattern, (whole) => {
    const moved = whole.replace(` ${from} `, ` ${to} `).replace(' ON ONLY ', ' ON ');
    return name ? moved.replace(` INDEX ${match.groups!.name} `, ` INDEX ${name} `) : moved;
  });
}
const INDEX_HEAD = /^CREATE (?:UNIQUE )?INDEX (?<name>\S+) ON (?:ONLY )?(?<table>\S+) USING /;
const TRIGGER_HEAD = /^CREATE (?:CONSTRAINT )?TRIGGER \S+ (?:BEFORE|AFTER|INSTEAD OF) .*? ON (?<table>\S+) /;

/** The name an index or constraint has on the next table until the swap (index names are unique in a schema). */
function nextName(name: string): string {
  const next = `${name}_next`;
  if (next.length > 63) throw new Error(`${name}: too long to take a temporary name`);
  return next;
}

/** The copy's name until the swap. */
function nextTableOf(table: string): string {
  return `${table}_next`;
}

/**
 * Build the next table beside the current one — rows, constraints and indexes under names of their own, triggers,
 * identity position, statistics — while writers wait and readers read the current one.
 */
async function copyTable(q: SqlRunner, layout: TableLayout): Promise<TableShape> {
  const { schema, table, hashPartitions, primaryKey } = layout;
  const current = qualified(schema, table);
  const nextTable = nextTableOf(table);
  const next = qualified(schema, nextTable);
  // Names as the catalogue prints them, unquoted: quoteIdent admits only names that need no quotes.
  const printed = `${schema}.${table}`;
  const shape = await shapeOf(q, current);
  const columns = `(LIKE ${current} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE)`;
  if (hashPartitions) {
    await q.query(`CREATE TABLE ${next} ${columns} PARTITION BY HASH (${quoteIdent(hashPartitions.column)})`);
    for (let remainder = 0; remainder < hashPartitions.partitions; remainder += 1) {
      // Named after the copy until the swap: the current table may have partitions of these names.
      await q.query(`CREATE TABLE ${qualified(schema, hashPartitionName(nextTable, remainder))} PARTITION OF ${next}
                     FOR VALUES WITH (MODULUS ${hashPartitions.partitions}, REMAINDER ${remainder})`);
    }
  } else {
    await q.query(`CREATE TABLE ${next} ${columns}`);
  }
  const overriding = shape.identityColumns.length > 0 ? 'OVERRIDING SYSTEM VALUE' : '';
  await q.query(`INSERT INTO ${next} ${overriding} SELECT * FROM ${current}`);
  for (const constraint of shape.constraints) {
    const definition = constraint.primary && primaryKey ? `PRIMARY KEY (${primaryKey.map(quoteIdent).join(', ')})` : constraint.definition;
    const name = constraint.indexed ? nextName(constraint.name) : constraint.name;
    await q.query(`ALTER TABLE ${next} ADD CONSTRAINT ${quoteIdent(name)} ${definition}`);
  }
  for (const index of shape.indexes) await q.query(retarget(index.definition, printed, `${schema}.${nextTable}`, INDEX_HEAD, nextName(index.name)));
  for (const trigger of shape.triggers) await q.query(retarget(trigger, printed, `${schema}.${nextTable}`, TRIGGER_HEAD));
  // The copy's identity has a sequence of its own, which starts again at 1 unless told where the rows left off.
  for (const { column } of shape.identityColumns) {
    await q.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quoteIdent(column)}) FROM ${next}), 0) + 1, false)`,
      [next, column],
    );
  }
  await q.query(`ANALYZE ${next}`);
  return shape;
}

/** Drop the current table and give the copy its names: a few catalogue changes. */
async function swapIn(q: SqlRunner, layout: TableLayout, shape: TableShape): Promise<void> {
  const { schema, table } = layout;
  const current = qualified(schema, table);
  await q.query(`DROP TABLE ${current}`);
  await q.query(`ALTER TABLE ${qualified(schema, nextTableOf(table))} RENAME TO ${quoteIdent(table)}`);
  for (const constraint of shape.constraints.filter((c) => c.indexed)) {
    await q.query(`ALTER TABLE ${current} RENAME CONSTRAINT ${quoteIdent(nextName(constraint.name))} TO ${quoteIdent(constraint.name)}`);
  }
  for (const index of shape.indexes) await q.query(`ALTER INDEX ${qualified(schema, nextName(index.name))} RENAME TO ${quoteIdent(index.name)}`);
  for (let remainder = 0; remainder < (layout.hashPartitions?.partitions ?? 0); remainder += 1) {
    await q.query(`ALTER TABLE ${qualified(schema, hashPartitionName(nextTableOf(table), remainder))} RENAME TO ${quoteIdent(hashPartitionName(table, remainder))}`);
  }
  // The old sequence went with the old table; the copy's takes its name.
  for (const { column, sequence } of shape.identityColumns) {
    const [{ name }] = await q.query('SELECT pg_get_serial_sequence($1, $2) AS name', [current, column]);
    await q.query(`ALTER SEQUENCE ${name} RENAME TO ${quoteIdent(sequence)}`);
  }
}

function qualified(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}
