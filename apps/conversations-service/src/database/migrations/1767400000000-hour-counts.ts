import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per UTC hour of their start, kept in conversation_counts per day (`hour:<YYYY-MM-DD>`, the hour `HH`
 * as the value): a deep page of the unfiltered list finds its day from the day counts, then its hour from that
 * day's 24, and skips only that hour's earlier conversations. The backfill counts the rows there are; the
 * projection keeps the counts from then on.
 */
export class HourCounts1767400000000 implements MigrationInterface {
  name = 'HourCounts1767400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT c.account_id, 'hour:' || to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD'), to_char(c.start_time AT TIME ZONE 'UTC', 'HH24'), count(*)
        FROM conversations.conversations c
       GROUP BY 1, 2, 3
      ON CONFLICT (account_id, facet, value) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM conversations.conversation_counts WHERE facet LIKE 'hour:%'`);
  }
}
