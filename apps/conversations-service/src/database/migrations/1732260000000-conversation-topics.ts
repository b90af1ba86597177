import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per (conversation, lower-cased topic), maintained with the read model.
 * A topic filter's exact total is then an index-only count instead of a bitmap
 * scan over the wide conversations heap (about a second at a million rows).
 */
export class ConversationTopics1732260000000 implements MigrationInterface {
  name = 'ConversationTopics1732260000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.conversation_topics (
      account_id text NOT NULL,
      topic text NOT NULL,
      conversation_id text COLLATE "C" NOT NULL,
      PRIMARY KEY (account_id, topic, conversation_id)
    )`);
    await q.query(`CREATE INDEX conversation_topics_conversation_idx ON conversations.conversation_topics (conversation_id)`);
    await q.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id)
                   SELECT DISTINCT c.account_id, t.topic, c.id FROM conversations.conversations c, unnest(c.topics_lower) AS t(topic)`);
    await q.query(`DROP INDEX IF EXISTS conversations.conversations_topics_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS conversations_topics_idx ON conversations.conversations USING gin (topics_lower)`);
    await q.query('DROP TABLE IF EXISTS conversations.conversation_topics');
  }
}
