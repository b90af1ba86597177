import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations per account, kept in the projection's transaction, so the most
 * common request (the unfiltered list) gets its exact total without counting a
 * million index entries.
 */
export class AccountTotals1732250000000 implements MigrationInterface {
  name = 'AccountTotals1732250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations.account_totals (
      account_id text PRIMARY KEY,
      conversations bigint NOT NULL DEFAULT 0
    )`);
    await q.query(`INSERT INTO conversations.account_totals (account_id, conversations)
                   SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversations.account_totals');
  }
}
