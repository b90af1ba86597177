/**
 * An index on the conversations read model built without blocking writes: outside a transaction, created on the
 * partitioned table only (empty and invalid), then concurrently on each partition and attached — it becomes valid
 * once every partition's is. On a table that is not partitioned it is built concurrently in one statement. A
 * concurrent build that was interrupted leaves an invalid index: it is dropped and built again when the migration
 * runs again. For migrations with `transaction = false`.
 */
import type { QueryRunner } from 'typeorm';

/** Builds `name` on conversations.conversations with `definition` (its columns, and any INCLUDE). */
export async function buildIndex(q: QueryRunner, name: string, definition: string): Promise<void> {
  const [{ partitioned }]: Array<{ partitioned: boolean }> = await q.query(
    `SELECT c.relkind = 'p' AS partitioned FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'conversations' AND c.relname = 'conversations'`,
  );
  if (!partitioned) {
    await dropIfInvalid(q, name);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON conversations.conversations ${definition}`);
    return;
  }
  await q.query(`CREATE INDEX IF NOT EXISTS ${name} ON ONLY conversations.conversations ${definition}`);
  const partitions: Array<{ partition: string }> = await q.query(
    `SELECT c.relname AS partition FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'conversations.conversations'::regclass ORDER BY c.relname`,
  );
  for (const { partition } of partitions) {
    const own = `${partition}_${name.replace(/^conversations_/, '')}`;
    await dropIfInvalid(q, own);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${own} ON conversations.${partition} ${definition}`);
    await q.query(`ALTER INDEX conversations.${name} ATTACH PARTITION conversations.${own}`);
  }
}

/** Drops the index if a concurrent build of it was interrupted (it exists, invalid, and is never used). */
async function dropIfInvalid(q: QueryRunner, name: string): Promise<void> {
  const [invalid]: Array<{ name: string }> = await q.query(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE c.relnamespace = 'conversations'::regnamespace AND c.relname = $1 AND NOT i.indisvalid`,
    [name],
  );
  if (invalid) await q.query(`DROP INDEX CONCURRENTLY conversations.${name}`);
}
