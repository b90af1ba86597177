import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - refused_conversations: the calls an agent did not answer (their start occurred
 *   once the agent was paused or deleted), so their later events are refused too
 *   instead of starting a conversation of their own. Written in the transaction
 *   that refuses the call.
 * - parked_call_events (agent_id, seq): parked events are replayed in small
 *   transactions, oldest first per agent.
 * - failed_parked_call_events: a parked event that could not be recorded on its own
 *   (the others of its chunk were), kept out of the way with the failure for
 *   inspection instead of being retried forever.
 */
export class RefusedConversationsAndParkedReplay1732300000000 implements MigrationInterface {
  name = 'RefusedConversationsAndParkedReplay1732300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.refused_conversations (
      account_id text NOT NULL,
      conversation_id text NOT NULL,
      agent_id text NOT NULL,
      status text NOT NULL,
      call_started_at timestamptz,
      refused_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, conversation_id)
    )`);
    await q.query(`CREATE INDEX parked_call_events_agent_seq ON conversations.parked_call_events (agent_id, seq)`);
    await q.query(`CREATE TABLE conversations.failed_parked_call_events (
      agent_id text NOT NULL,
      event_id text NOT NULL,
      event jsonb NOT NULL,
      parked_at timestamptz NOT NULL,
      failure text NOT NULL,
      failed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (agent_id, event_id)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.failed_parked_call_events');
    await q.query('DROP INDEX IF EXISTS conversations.parked_call_events_agent_seq');
    await q.query('DROP TABLE IF EXISTS conversations.refused_conversations');
  }
}
