import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per duration in seconds (`duration`, the value the number of seconds), kept in conversation_counts:
 * a list filtered on min_duration and/or max_duration alone sums its total over the account's distinct durations
 * instead of counting every match. The backfill counts the rows there are; the projection keeps it.
 */
export class DurationCounts1767200000000 implements MigrationInterface {
  name = 'DurationCounts1767200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations)
      SELECT account_id, 'duration', duration::text, count(*) FROM conversations.conversations GROUP BY account_id, duration
      ON CONFLICT (account_id, facet, value) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM conversations.conversation_counts WHERE facet = 'duration'`);
  }
}
