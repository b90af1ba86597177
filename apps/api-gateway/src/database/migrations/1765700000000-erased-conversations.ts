import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tombstones of erased conversations (from CONVERSATIONS_ERASED: account, conversation id, when; nothing personal).
 * Their inbound webhook deliveries are deleted when the notice arrives; a delivery of one that arrives later (a
 * platform retrying an old webhook) is still logged — the platform gets its answer and the call events are dropped
 * by conversations-service — but a trigger stores it without its body, so the log never holds the call again.
 */
export class ErasedConversations1765700000000 implements MigrationInterface {
  name = 'ErasedConversations1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE gateway.erased_conversations (
      account_id text NOT NULL,
      conversation_id text NOT NULL,
      erased_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, conversation_id)
    )`);
    await q.query(`CREATE FUNCTION gateway.drop_erased_conversation_bodies() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.conversation_id IS NOT NULL AND EXISTS (
             SELECT 1 FROM gateway.erased_conversations e WHERE e.account_id = NEW.account_id AND e.conversation_id = NEW.conversation_id) THEN
          NEW.body := ''::bytea;
          NEW.reason := coalesce(NEW.reason, 'conversation erased: body not kept');
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER webhook_deliveries_drop_erased_bodies BEFORE INSERT OR UPDATE ON gateway.webhook_deliveries
                   FOR EACH ROW EXECUTE FUNCTION gateway.drop_erased_conversation_bodies()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS webhook_deliveries_drop_erased_bodies ON gateway.webhook_deliveries');
    await q.query('DROP FUNCTION IF EXISTS gateway.drop_erased_conversation_bodies()');
    await q.query('DROP TABLE IF EXISTS gateway.erased_conversations');
  }
}
