import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per topic and status (`status:topic`, the value `<status>:<topic>`; no status contains ':'), kept in
 * conversation_counts beside `status:agent_id`: a list of one topic and one status reads its total from one row
 * instead of counting the topic table's matches. The backfill counts the rows there are; the projection keeps it.
 */
export class StatusTopicCounts1767100000000 implements MigrationInterface {
  name = 'StatusTopicCounts1767100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT d.account_id, 'status:topic', d.status || ':' || d.topic, count(*)
        FROM (SELECT DISTINCT c.account_id, c.id, c.status, t AS topic FROM conversations.conversations c, unnest(c.topics_lower) AS t) d
       GROUP BY d.account_id, d.status, d.topic
      ON CONFLICT (account_id, facet, value) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM conversations.conversation_counts WHERE facet = 'status:topic'`);
  }
}
