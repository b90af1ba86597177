import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many of an endpoint's deliveries failed in a row since its last success, and when the first of them
 * failed: what disabling an endpoint that keeps failing is decided on.
 */
export class EndpointFailureStreak1765200000000 implements MigrationInterface {
  name = 'EndpointFailureStreak1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.endpoints ADD COLUMN failed_in_a_row integer NOT NULL DEFAULT 0, ADD COLUMN failing_since timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.endpoints DROP COLUMN failed_in_a_row, DROP COLUMN failing_since');
  }
}
