import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversation ids and event ids come from the voice platforms and are only
 * unique within an account: streams, read-model rows and event-id
 * de-duplication become per (account_id, id). The public id stays the
 * platform's conversation id.
 *
 * Also: the agent's voice platform is snapshotted on the conversation (and in
 * the metadata of the events, so a rebuild gives the same value) instead of
 * being read from the agent's current state.
 */
export class AccountScopedConversations1732280000000 implements MigrationInterface {
  name = 'AccountScopedConversations1732280000000';

  async up(q: QueryRunner): Promise<void> {
    // Event store: the account of each stored event (its conversation's, else its agent's).
    await q.query(`ALTER TABLE conversations.events ADD COLUMN account_id text`);
    await q.query(`UPDATE conversations.events e SET account_id = c.account_id FROM conversations.conversations c WHERE c.id = e.stream_id`);
    await q.query(`UPDATE conversations.events e SET account_id = a.account_id FROM conversations.agents a
                    WHERE e.account_id IS NULL AND a.agent_id = e.data->>'agent_id'`);
    // Cannot happen through the service (an event is stored only for a known agent); kept visible, never dropped.
    await q.query(`UPDATE conversations.events SET account_id = '' WHERE account_id IS NULL`);
    await q.query(`ALTER TABLE conversations.events ALTER COLUMN account_id SET NOT NULL`);
    await q.query(`ALTER TABLE conversations.events DROP CONSTRAINT events_event_id_key, DROP CONSTRAINT events_stream_version_key`);
    await q.query(`ALTER TABLE conversations.events
                     ADD CONSTRAINT events_account_event_id_key UNIQUE (account_id, event_id),
                     ADD CONSTRAINT events_account_stream_version_key UNIQUE (account_id, stream_id, stream_version)`);

    // Read model and its side tables.
    await q.query(`ALTER TABLE conversations.conversations DROP CONSTRAINT conversations_pkey, ADD PRIMARY KEY (account_id, id)`);
    await q.query(`ALTER TABLE conversations.conversation_search DROP CONSTRAINT conversation_search_pkey, ADD PRIMARY KEY (account_id, id)`);
    await q.query(`DROP INDEX IF EXISTS conversations.conversation_topics_conversation_idx`);
    await q.query(`CREATE INDEX conversation_topics_conversation_idx ON conversations.conversation_topics (account_id, conversation_id)`);

    // The platform that answered the call, as it was then.
    await q.query(`ALTER TABLE conversations.conversations ADD COLUMN voice_platform text`);
    await q.query(`UPDATE conversations.conversations c SET voice_platform = a.voice_platform FROM conversations.agents a WHERE a.agent_id = c.agent_id`);
    await q.query(`UPDATE conversations.events e SET metadata = e.metadata || jsonb_build_object('voice_platform', c.voice_platform)
                     FROM conversations.conversations c
                    WHERE c.account_id = e.account_id AND c.id = e.stream_id AND c.voice_platform IS NOT NULL
                      AND e.stream_version = (SELECT min(f.stream_version) FROM conversations.events f
                                               WHERE f.account_id = e.account_id AND f.stream_id = e.stream_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations.conversations DROP COLUMN IF EXISTS voice_platform`);
    await q.query(`DROP INDEX IF EXISTS conversations.conversation_topics_conversation_idx`);
    await q.query(`CREATE INDEX conversation_topics_conversation_idx ON conversations.conversation_topics (conversation_id)`);
    await q.query(`ALTER TABLE conversations.conversation_search DROP CONSTRAINT conversation_search_pkey, ADD PRIMARY KEY (id)`);
    await q.query(`ALTER TABLE conversations.conversations DROP CONSTRAINT conversations_pkey, ADD PRIMARY KEY (id)`);
    await q.query(`ALTER TABLE conversations.events DROP CONSTRAINT events_account_event_id_key, DROP CONSTRAINT events_account_stream_version_key`);
    await q.query(`ALTER TABLE conversations.events
                     ADD CONSTRAINT events_event_id_key UNIQUE (event_id),
                     ADD CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)`);
    await q.query(`ALTER TABLE conversations.events DROP COLUMN account_id`);
  }
}
