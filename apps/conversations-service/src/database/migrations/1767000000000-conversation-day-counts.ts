import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per UTC day of their start — in all (`day`), per status (`day:status:<status>`) and per
 * has_recording (`day:has_recording:<true|false>`) — kept in conversation_counts beside the other facets, the
 * day as the value. A date range's total is then the sum of its whole days plus an exact count of its partial
 * days, and a deep page of such a list starts from the day it falls in rather than skipping every row before it.
 * The backfill counts the rows there are; the projection keeps the counts from then on.
 */
export class ConversationDayCounts1767000000000 implements MigrationInterface {
  name = 'ConversationDayCounts1767000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT c.account_id, f.facet, d.day, count(*)
        FROM conversations.conversations c
       CROSS JOIN LATERAL (SELECT to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day) d
       CROSS JOIN LATERAL (VALUES ('day'), ('day:status:' || c.status), ('day:has_recording:' || c.has_recording::text)) AS f(facet)
       GROUP BY c.account_id, f.facet, d.day
      ON CONFLICT (account_id, facet, value) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM conversations.conversation_counts WHERE facet = 'day' OR facet LIKE 'day:%'`);
  }
}
