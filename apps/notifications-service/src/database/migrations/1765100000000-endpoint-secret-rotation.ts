import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rotated endpoint keeps its previous secret (sealed, bound to `<endpoint_id>/previous_secret`) until
 * `previous_secret_expires_at`: until then every delivery carries a signature by each secret.
 */
export class EndpointSecretRotation1765100000000 implements MigrationInterface {
  name = 'EndpointSecretRotation1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.endpoints ADD COLUMN previous_secret_sealed text, ADD COLUMN previous_secret_expires_at timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE notifications.endpoints DROP COLUMN previous_secret_sealed, DROP COLUMN previous_secret_expires_at');
  }
}
