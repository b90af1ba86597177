import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each conversation row carries the id of the transaction that last wrote it (set by the database on insert
 * and by a trigger on every update, so no write path can forget it). A reader that remembers the xmin of
 * its previous snapshot finds every row changed since with one index range (changed_xid >= that xmin):
 * a transaction it did not see either was running then or started later, so its id is at least that xmin.
 * The stats' in-memory columns (conversation-stats/stats-memory.ts) stay equal to the read model this way.
 */
export class ConversationChangeXid1732350000000 implements MigrationInterface {
  name = 'ConversationChangeXid1732350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations.conversations ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE FUNCTION conversations.stamp_changed_xid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.changed_xid := pg_current_xact_id();
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER conversations_stamp_changed_xid BEFORE UPDATE ON conversations.conversations
                   FOR EACH ROW EXECUTE FUNCTION conversations.stamp_changed_xid()`);
    await q.query(`CREATE INDEX conversations_account_changed_idx ON conversations.conversations (account_id, changed_xid)`);
    // Every existing row now has this migration's id: without fresh statistics the planner would expect a third of
    // the table past any later xmin and scan it instead of the index range.
    await q.query('ANALYZE conversations.conversations');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS conversations_stamp_changed_xid ON conversations.conversations');
    await q.query('DROP FUNCTION IF EXISTS conversations.stamp_changed_xid()');
    await q.query('ALTER TABLE conversations.conversations DROP COLUMN IF EXISTS changed_xid');
  }
}
