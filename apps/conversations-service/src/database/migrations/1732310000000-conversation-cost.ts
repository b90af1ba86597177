import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * cost_amount: what the call cost in USD (the folded record's cost.amount), a column so the list's
 * min_cost/max_cost filters are SQL. numeric, not float: an amount compares exactly with the decimal
 * a client writes (0.1 is 0.1). Null when unknown, and then no cost filter matches the call.
 *
 * No backfill: no event stored before this contract could carry a cost. The index is partial, as
 * most calls have no cost, and leads with account_id like every other filter's index.
 */
export class ConversationCost1732310000000 implements MigrationInterface {
  name = 'ConversationCost1732310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE conversations.conversations ADD COLUMN cost_amount numeric`);
    await q.query(`CREATE INDEX conversations_account_cost_idx ON conversations.conversations (account_id, cost_amount, start_time, id)
                   WHERE cost_amount IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS conversations.conversations_account_cost_idx');
    await q.query('ALTER TABLE conversations.conversations DROP COLUMN IF EXISTS cost_amount');
  }
}
