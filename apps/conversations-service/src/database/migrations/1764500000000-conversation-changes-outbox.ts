import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox of the list read model: every write of a conversation row to a new stream version leaves, in the
 * same transaction, the change it announces (the list item as that version shows it). A trigger writes it, so no
 * write path can forget it and a rolled-back write leaves nothing; the relay (publish-conversation-changes/)
 * reads what is committed in (transaction_id, global_position) order, publishes it and deletes it.
 */
export class ConversationChangesOutbox1764500000000 implements MigrationInterface {
  name = 'ConversationChangesOutbox1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.conversation_changes (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      account_id text NOT NULL,
      conversation_id text NOT NULL,
      version integer NOT NULL,
      created boolean NOT NULL,
      item jsonb NOT NULL
    )`);
    await q.query('CREATE INDEX conversation_changes_transaction_order_idx ON conversations.conversation_changes (transaction_id, global_position)');
    // The agent's name as the directory knows it when the row is written (what the list joins at read time).
    await q.query(`CREATE FUNCTION conversations.record_conversation_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('conversations.replacing_read_model', true) = 'on' THEN RETURN NULL; END IF;
        INSERT INTO conversations.conversation_changes (account_id, conversation_id, version, created, item)
        VALUES (NEW.account_id, NEW.id, NEW.stream_version, TG_OP = 'INSERT', jsonb_build_object(
          'id', NEW.id, 'agent_id', NEW.agent_id,
          'agent_name', (SELECT a.name FROM conversations.agents a WHERE a.agent_id = NEW.agent_id),
          'caller_number', NEW.caller_number, 'status', NEW.status, 'start_time', NEW.start_time, 'end_time', NEW.end_time,
          'duration', NEW.duration, 'sentiment', NEW.sentiment, 'outcome', NEW.outcome, 'topics', to_jsonb(NEW.topics),
          'has_recording', NEW.has_recording, 'has_transcript', NEW.has_transcript, 'summary', NEW.summary,
          'created_at', NEW.created_at));
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER conversations_record_change_on_insert AFTER INSERT ON conversations.conversations
                   FOR EACH ROW EXECUTE FUNCTION conversations.record_conversation_change()`);
    // A rewrite at the same version changes nothing a subscriber has not seen (a rebuild's swap, which re-inserts
    // every row, says so with the replacing_read_model setting).
    await q.query(`CREATE TRIGGER conversations_record_change_on_update AFTER UPDATE ON conversations.conversations
                   FOR EACH ROW WHEN (OLD.stream_version IS DISTINCT FROM NEW.stream_version)
                   EXECUTE FUNCTION conversations.record_conversation_change()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS conversations_record_change_on_update ON conversations.conversations');
    await q.query('DROP TRIGGER IF EXISTS conversations_record_change_on_insert ON conversations.conversations');
    await q.query('DROP FUNCTION IF EXISTS conversations.record_conversation_change()');
    await q.query('DROP TABLE IF EXISTS conversations.conversation_changes');
  }
}
