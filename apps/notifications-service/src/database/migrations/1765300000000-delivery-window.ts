import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a delivery's first attempt was due: in-progress conversation updates to one endpoint are spaced by their
 * windows (at most one per conversation per 5 s), a newer one replacing an older not yet attempted.
 */
export class DeliveryWindow1765300000000 implements MigrationInterface {
  name = 'DeliveryWindow1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.deliveries ADD COLUMN window_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.deliveries DROP COLUMN window_at');
  }
}
