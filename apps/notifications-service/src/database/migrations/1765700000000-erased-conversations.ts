import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tombstones of erased conversations (from CONVERSATIONS_ERASED: account, conversation id, when; nothing personal).
 * A trigger refuses, silently, any event of an erased conversation: a conversation change published before the
 * erasure and consumed after it (the two streams are not ordered with each other) records nothing and so plans no
 * delivery, whichever write path it takes.
 */
export class ErasedConversations1765700000000 implements MigrationInterface {
  name = 'ErasedConversations1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE notifications.erased_conversations (
      account_id text NOT NULL,
      conversation_id text NOT NULL,
      erased_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, conversation_id)
    )`);
    await q.query('CREATE INDEX events_account_conversation ON notifications.events (account_id, conversation_id) WHERE conversation_id IS NOT NULL');
    await q.query(`CREATE FUNCTION notifications.skip_erased_conversation_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.conversation_id IS NOT NULL AND EXISTS (
             SELECT 1 FROM notifications.erased_conversations e WHERE e.account_id = NEW.account_id AND e.conversation_id = NEW.conversation_id) THEN
          RETURN NULL;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER events_skip_erased_conversations BEFORE INSERT ON notifications.events
                   FOR EACH ROW EXECUTE FUNCTION notifications.skip_erased_conversation_events()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS events_skip_erased_conversations ON notifications.events');
    await q.query('DROP FUNCTION IF EXISTS notifications.skip_erased_conversation_events()');
    await q.query('DROP INDEX IF EXISTS notifications.events_account_conversation');
    await q.query('DROP TABLE IF EXISTS notifications.erased_conversations');
  }
}
