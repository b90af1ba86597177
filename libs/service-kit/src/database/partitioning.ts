import { quoteIdent } from './database.js';

/** What the partitioning steps need of a connection: a TypeORM QueryRunner or a pg client. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

export interface HashPartitioning {
  schema: string;
  table: string;
  /** The column whose hash picks the partition; every primary key and unique constraint must include it. */
  column: string;
  partitions: number;
  /**
   * Columns of the primary key to give the partitioned table when the table's own does not include `column`
   * (a partitioned table's keys must): the event store's `(global_position)` becomes `(account_id, global_position)`.
   */
  primaryKey?: string[];
}

/** The name of one hash partition: `conversations_h07`. */
export function hashPartitionName(table: string, remainder: number): string {
  return `${table}_h${String(remainder).padStart(2, '0')}`;
}

/**
 * Move a table's rows into a table of the same name partitioned by the hash of one column, keeping its columns
 * (defaults, collations, identity), constraints, indexes and triggers under their names. For a migration: it runs in
 * the caller's transaction and takes the table for writes first, so a writer waits for the commit rather than writing
 * into the table being copied; readers go on reading the old table until the swap at the end.
 */
export async function partitionByHash(q: SqlRunner, spec: HashPartitioning): Promise<void> {
  const { schema, table, column, partitions } = spec;
  if (!Number.isInteger(partitions) || partitions < 2 || partitions > 256) throw new Error(`partitions must be an integer from 2 to 256, not ${partitions}`);
  await rebuildTable(q, schema, table, async (next) => {
    await q.query(`CREATE TABLE ${next} (LIKE ${qualified(schema, table)} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE)
                   PARTITION BY HASH (${quoteIdent(column)})`);
    for (let remainder = 0; remainder < partitions; remainder += 1) {
      await q.query(`CREATE TABLE ${qualified(schema, hashPartitionName(table, remainder))} PARTITION OF ${next}
                     FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${remainder})`);
    }
  }, spec.primaryKey);
}

/** The way back: the rows of a partitioned table in one plain table of the same name, with the same constraints, indexes and triggers. */
export async function unpartition(q: SqlRunner, schema: string, table: string, primaryKey?: string[]): Promise<void> {
  await rebuildTable(q, schema, table, async (next) => {
    await q.query(`CREATE TABLE ${next} (LIKE ${qualified(schema, table)} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE)`);
  }, primaryKey);
}

/** Whether the table is partitioned, and into how many partitions. */
export async function partitionCount(q: SqlRunner, schema: string, table: string): Promise<number | null> {
  const [row] = await q.query(
    `SELECT c.relkind = 'p' AS partitioned, (SELECT count(*)::int FROM pg_inherits i WHERE i.inhparent = c.oid) AS partitions
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
    [schema, table],
  );
  if (!row) throw new Error(`no table ${schema}.${table}`);
  return row.partitioned ? row.partitions : null;
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

/**
 * Build the next table beside the current one — rows, constraints, indexes, triggers, identity position — while
 * writers wait and readers read the current one; then swap: drop the current table and give the next one its names.
 * Only the swap, a few catalogue changes, keeps readers out.
 */
async function rebuildTable(q: SqlRunner, schema: string, table: string, createNext: (next: string) => Promise<void>, primaryKey?: string[]): Promise<void> {
  const current = qualified(schema, table);
  const nextTable = `${table}_next`;
  const next = qualified(schema, nextTable);
  // Names as the catalogue prints them, unquoted: quoteIdent admits only names that need no quotes.
  const printed = `${schema}.${table}`;
  await q.query(`LOCK TABLE ${current} IN SHARE ROW EXCLUSIVE MODE`);
  const shape = await shapeOf(q, current);
  await createNext(next);
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

  // The swap.
  await q.query(`DROP TABLE ${current}`);
  await q.query(`ALTER TABLE ${next} RENAME TO ${quoteIdent(table)}`);
  for (const constraint of shape.constraints.filter((c) => c.indexed)) {
    await q.query(`ALTER TABLE ${current} RENAME CONSTRAINT ${quoteIdent(nextName(constraint.name))} TO ${quoteIdent(constraint.name)}`);
  }
  for (const index of shape.indexes) await q.query(`ALTER INDEX ${qualified(schema, nextName(index.name))} RENAME TO ${quoteIdent(index.name)}`);
  for (const { column, sequence } of shape.identityColumns) {
    const [{ name }] = await q.query('SELECT pg_get_serial_sequence($1, $2) AS name', [current, column]);
    await q.query(`ALTER SEQUENCE ${name} RENAME TO ${quoteIdent(sequence)}`);
  }
}

function qualified(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}
