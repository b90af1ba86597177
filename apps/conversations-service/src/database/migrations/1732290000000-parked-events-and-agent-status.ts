import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - parked_call_events: call events whose agent is not known yet, kept (and
 *   acknowledged on the bus) until the agent's first event arrives, then
 *   recorded in that event's transaction and removed.
 * - agent_status_history: the status each agent event left the agent in, and
 *   when, so "was the agent answering when this call started" can be answered
 *   for any time, whatever order the events arrive in.
 */
export class ParkedEventsAndAgentStatus1732290000000 implements MigrationInterface {
  name = 'ParkedEventsAndAgentStatus1732290000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.parked_call_events (
      agent_id text NOT NULL,
      event_id text NOT NULL,
      event jsonb NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      parked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (agent_id, event_id)
    )`);
    await q.query(`CREATE TABLE conversations.agent_status_history (
      agent_id text NOT NULL,
      version integer NOT NULL,
      status text NOT NULL,
      since timestamptz NOT NULL,
      PRIMARY KEY (agent_id, version)
    )`);
    // What was known before: the current status, from when it was learnt (an upper bound of the change).
    await q.query(`INSERT INTO conversations.agent_status_history (agent_id, version, status, since)
                   SELECT agent_id, version, status, updated_at FROM conversations.agents`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.agent_status_history');
    await q.query('DROP TABLE IF EXISTS conversations.parked_call_events');
  }
}
