import type { DataSource, QueryRunner } from 'typeorm';
import { quoteIdent } from './database.js';
import { PG_UNIQUE_VIOLATION, pgErrorOf } from './pg-errors.js';

/**
 * An append-only event table per service schema. `(stream_id, stream_version)`
 * is unique for optimistic concurrency; `event_id` is unique so a re-append of
 * the same event is detected; `transaction_id` lets checkpointed readers avoid
 * skipping rows whose transaction commits late.
 */
export function eventStoreDdl(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `CREATE TABLE ${s}.events (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id text NOT NULL,
      stream_version integer NOT NULL,
      event_id text NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version),
      CONSTRAINT events_event_id_key UNIQUE (event_id)
    )`,
    `CREATE INDEX events_transaction_order_idx ON ${s}.events (transaction_id, global_position)`,
    `CREATE TABLE ${s}.checkpoints (
      name text PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT '0'::xid8,
      global_position bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
  ];
}

export interface NewEvent {
  event_id: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

export interface StoredEvent {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  data: any;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export class WrongExpectedVersion extends Error {
  constructor(readonly streamId: string, readonly expectedVersion: number) {
    super(`stream ${streamId} is not at version ${expectedVersion}`);
  }
}
export class DuplicateEvent extends Error {
  constructor(readonly eventId: string) {
    super(`event ${eventId} was already appended`);
  }
}

/**
 * Append events after `expectedVersion` (0 for a new stream). Must run inside
 * the caller's transaction so projections commit atomically with the events.
 * Returns the new stream version.
 */
export async function appendToStream(
  runner: QueryRunner,
  schema: string,
  streamId: string,
  expectedVersion: number,
  events: NewEvent[],
): Promise<number> {
  if (events.length === 0) return expectedVersion;
  const values: unknown[] = [];
  const rows = events.map((event, i) => {
    values.push(streamId, expectedVersion + i + 1, event.event_id, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata ?? {}));
    const b = i * 6;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}::jsonb, $${b + 6}::jsonb)`;
  });
  try {
    await runner.query(
      `INSERT INTO ${quoteIdent(schema)}.events (stream_id, stream_version, event_id, type, data, metadata) VALUES ${rows.join(', ')}`,
      values,
    );
  } catch (err) {
    const pg = pgErrorOf(err);
    if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'events_stream_version_key') throw new WrongExpectedVersion(streamId, expectedVersion);
    if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'events_event_id_key') throw new DuplicateEvent(events[0].event_id);
    throw err;
  }
  return expectedVersion + events.length;
}

export async function readStream(db: DataSource | QueryRunner, schema: string, streamId: string): Promise<StoredEvent[]> {
  return db.query(
    `SELECT global_position, transaction_id::text, stream_id, stream_version, event_id, type, data, metadata, created_at
       FROM ${quoteIdent(schema)}.events WHERE stream_id = $1 ORDER BY stream_version`,
    [streamId],
  );
}

/**
 * Rows of an append-only table with `transaction_id xid8` and `global_position` columns committed after a
 * checkpoint, in commit order. Only rows whose transaction is older than every transaction still in flight are
 * returned, so a row that commits after a later-numbered one is never skipped (emmett's remedy). `columns` is the
 * select list over the alias `r`; the positions come back as text.
 */
export function readCommittedRowsAfter<Row>(
  db: DataSource | QueryRunner,
  table: string,
  columns: string,
  after: { transaction_id: string; global_position: string },
  limit: number,
): Promise<Row[]> {
  return db.query(
    // ORDER BY names the table's columns: a bare name would mean the text output columns, sorting "1000" before
    // "917", and a checkpoint taken from such a batch would pass rows never handed out.
    `SELECT r.global_position::text AS global_position, r.transaction_id::text AS transaction_id, ${columns}
       FROM ${table} r
      WHERE (r.transaction_id, r.global_position) > ($1::xid8, $2::bigint)
        AND r.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY r.transaction_id, r.global_position
      LIMIT $3`,
    [after.transaction_id, after.global_position, limit],
  );
}

/** Events committed after a checkpoint, in commit order (see readCommittedRowsAfter). */
export function readCommittedAfter(
  db: DataSource | QueryRunner,
  schema: string,
  after: { transaction_id: string; global_position: string },
  limit: number,
): Promise<StoredEvent[]> {
  return readCommittedRowsAfter<StoredEvent>(
    db, `${quoteIdent(schema)}.events`, 'r.stream_id, r.stream_version, r.event_id, r.type, r.data, r.metadata, r.created_at', after, limit,
  );
}
