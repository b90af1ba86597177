import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a claim reads, per endpoint: its due deliveries in order, and how many of its deliveries are leased now. Both
 * read a few index entries of one endpoint, so a claim costs the same with ten or a hundred thousand deliveries
 * waiting (the whole pending set was sorted on every claim before). The index of every pending delivery by due time
 * served only that sort: gone, one index fewer to maintain on every write of a delivery.
 */
export class DeliveriesClaimIndexes1765450000000 implements MigrationInterface {
  name = 'DeliveriesClaimIndexes1765450000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deliveries_endpoint_due ON notifications.deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending'`);
    await q.query('CREATE INDEX deliveries_endpoint_leased ON notifications.deliveries (endpoint_id, lease_until) WHERE lease_until IS NOT NULL');
    await q.query('DROP INDEX notifications.deliveries_due');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deliveries_due ON notifications.deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query('DROP INDEX IF EXISTS notifications.deliveries_endpoint_leased');
    await q.query('DROP INDEX IF EXISTS notifications.deliveries_endpoint_due');
  }
}
