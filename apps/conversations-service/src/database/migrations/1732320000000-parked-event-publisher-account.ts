import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * publisher_account_id: the account the subject of a parked call event named (`call_events.<account_id>.<type>`).
 * A parked event's agent is not known yet, so whether it belongs to that account is checked only at replay;
 * null for the unscoped subject and for events parked before this column.
 */
export class ParkedEventPublisherAccount1732320000000 implements MigrationInterface {
  name = 'ParkedEventPublisherAccount1732320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations.parked_call_events ADD COLUMN publisher_account_id text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE conversations.parked_call_events DROP COLUMN IF EXISTS publisher_account_id');
  }
}
