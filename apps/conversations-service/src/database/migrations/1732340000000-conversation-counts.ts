import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per (account, facet, value) — status, agent_id, status:agent_id, sentiment, outcome,
 * has_recording, has_transcript, topic — kept by the projection in its transaction (old values
 * subtracted, new ones added). A list filtered on one of them alone gets its exact total from one row
 * instead of counting hundreds of thousands of index entries.
 */
export class ConversationCounts1732340000000 implements MigrationInterface {
  name = 'ConversationCounts1732340000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.conversation_counts (
      account_id text NOT NULL,
      facet text NOT NULL,
      value text NOT NULL,
      conversations bigint NOT NULL,
      PRIMARY KEY (account_id, facet, value)
    )`);
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT account_id, facet, value, count(*) FROM (
        SELECT c.account_id, f.facet, f.value
          FROM conversations.conversations c
         CROSS JOIN LATERAL (VALUES ('status', c.status), ('agent_id', c.agent_id), ('status:agent_id', c.status || ':' || c.agent_id),
                                    ('sentiment', c.sentiment), ('outcome', c.outcome),
                                    ('has_recording', c.has_recording::text), ('has_transcript', c.has_transcript::text)) AS f(facet, value)
         WHERE f.value IS NOT NULL
        UNION ALL
        SELECT d.account_id, 'topic', d.topic
          FROM (SELECT DISTINCT c.account_id, c.id, t AS topic FROM conversations.conversations c, unnest(c.topics_lower) AS t) d
      ) facets GROUP BY account_id, facet, value`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.conversation_counts');
  }
}
