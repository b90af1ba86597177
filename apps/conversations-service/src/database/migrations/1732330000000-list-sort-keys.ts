import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list's narrow side tables carry the sort key and the commonest companion filters of their
 * conversation (start_time, status, agent_id), kept with the row by the projection. A topic or
 * search list in start_time order then reads its page and its exact total from one narrow index
 * range instead of joining every match back to the wide conversations heap.
 *
 * conversations gets (account_id, agent_id, status, start_time, id): "this agent's failed calls"
 * is one index range, counted index-only.
 */
export class ListSortKeys1732330000000 implements MigrationInterface {
  name = 'ListSortKeys1732330000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX conversations_account_agent_status_idx ON conversations.conversations (account_id, agent_id, status, start_time, id)`);

    await q.query(`ALTER TABLE conversations.conversation_topics ADD COLUMN start_time timestamptz, ADD COLUMN status text, ADD COLUMN agent_id text`);
    await q.query(`UPDATE conversations.conversation_topics t SET start_time = c.start_time, status = c.status, agent_id = c.agent_id
                     FROM conversations.conversations c WHERE c.account_id = t.account_id AND c.id = t.conversation_id`);
    await q.query(`ALTER TABLE conversations.conversation_topics ALTER COLUMN start_time SET NOT NULL, ALTER COLUMN status SET NOT NULL, ALTER COLUMN agent_id SET NOT NULL`);
    await q.query(`CREATE INDEX conversation_topics_start_idx ON conversations.conversation_topics (account_id, topic, start_time, conversation_id) INCLUDE (status, agent_id)`);
    await q.query(`CREATE INDEX conversation_topics_status_start_idx ON conversations.conversation_topics (account_id, topic, status, start_time, conversation_id)`);

    await q.query(`ALTER TABLE conversations.conversation_search ADD COLUMN start_time timestamptz, ADD COLUMN status text, ADD COLUMN agent_id text`);
    await q.query(`UPDATE conversations.conversation_search s SET start_time = c.start_time, status = c.status, agent_id = c.agent_id
                     FROM conversations.conversations c WHERE c.account_id = s.account_id AND c.id = s.id`);
    await q.query(`ALTER TABLE conversations.conversation_search ALTER COLUMN start_time SET NOT NULL, ALTER COLUMN status SET NOT NULL, ALTER COLUMN agent_id SET NOT NULL`);
    await q.query(`CREATE INDEX conversation_search_start_idx ON conversations.conversation_search (account_id, start_time, id) INCLUDE (status, agent_id)`);
    await q.query(`CREATE INDEX conversation_search_status_start_idx ON conversations.conversation_search (account_id, status, start_time, id)`);
    await q.query(`CREATE INDEX conversation_search_agent_start_idx ON conversations.conversation_search (account_id, agent_id, start_time, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS conversations.conversation_search_agent_start_idx');
    await q.query('DROP INDEX IF EXISTS conversations.conversation_search_status_start_idx');
    await q.query('DROP INDEX IF EXISTS conversations.conversation_search_start_idx');
    await q.query('ALTER TABLE conversations.conversation_search DROP COLUMN IF EXISTS start_time, DROP COLUMN IF EXISTS status, DROP COLUMN IF EXISTS agent_id');
    await q.query('DROP INDEX IF EXISTS conversations.conversation_topics_status_start_idx');
    await q.query('DROP INDEX IF EXISTS conversations.conversation_topics_start_idx');
    await q.query('ALTER TABLE conversations.conversation_topics DROP COLUMN IF EXISTS start_time, DROP COLUMN IF EXISTS status, DROP COLUMN IF EXISTS agent_id');
    await q.query('DROP INDEX IF EXISTS conversations.conversations_account_agent_status_idx');
  }
}
