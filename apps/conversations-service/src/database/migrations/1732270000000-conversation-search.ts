import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search text again, in a narrow table of its own: a broad substring search
 * must recheck every candidate row, and on the wide conversations heap that is
 * most of the time of an exact total. Kept with the read model row.
 */
export class ConversationSearch1732270000000 implements MigrationInterface {
  name = 'ConversationSearch1732270000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.conversation_search (
      id text COLLATE "C" PRIMARY KEY,
      account_id text NOT NULL,
      search_text text NOT NULL
    )`);
    await q.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text)
                   SELECT id, account_id, search_text FROM conversations.conversations`);
    await q.query(`CREATE INDEX conversation_search_trgm_idx ON conversations.conversation_search USING gin (search_text gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.conversation_search');
  }
}
