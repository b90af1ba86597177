import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per UTC day of their start and topic (`day:topic:<topic>`), and per day, topic and status
 * (`day:status:<status>:topic:<topic>`; no status contains ':'), the day as the value, kept in conversation_counts
 * beside the other day counts: a deep page of one topic's list (with or without one status) starts from the day it
 * falls in rather than skipping every earlier match of the topic. The backfill counts the rows there are; the
 * projection keeps the counts from then on.
 */
export class TopicDayCounts1767300000000 implements MigrationInterface {
  name = 'TopicDayCounts1767300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT d.account_id, f.facet, d.day, count(*)
        FROM (SELECT DISTINCT c.account_id, c.id, c.status, to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, t AS topic
                FROM conversations.conversations c, unnest(c.topics_lower) AS t) d
       CROSS JOIN LATERAL (VALUES ('day:topic:' || d.topic), ('day:status:' || d.status || ':topic:' || d.topic)) AS f(facet)
       GROUP BY d.account_id, f.facet, d.day
      ON CONFLICT (account_id, facet, value) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM conversations.conversation_counts WHERE facet LIKE 'day:topic:%' OR facet LIKE 'day:status:%:topic:%'`);
  }
}
