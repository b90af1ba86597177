import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventStoreDdl } from '@voice/service-kit';

/**
 * Event store, the inline-projected read model and the rows the invariants
 * hang on. Uniqueness of names and phone numbers lives in partial unique
 * indexes (deleted agents release both); the quota is enforced under a row
 * lock on account_usage, so neither is a check-then-insert race.
 */
export class CreateAgentsSchema1732250000000 implements MigrationInterface {
  name = 'CreateAgentsSchema1732250000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of eventStoreDdl('agents')) await q.query(sql);
    await q.query(`
      CREATE TABLE agents.agents (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        name text NOT NULL,
        voice_platform text NOT NULL,
        phone_number text NOT NULL,
        voice_id text NOT NULL,
        language text NOT NULL,
        system_prompt text,
        welcome_message text,
        transfer_number text,
        business_hours jsonb,
        recording_enabled boolean NOT NULL,
        transcription_enabled boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'paused', 'deleted')),
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX agents_account_name_key ON agents.agents (account_id, lower(btrim(name))) WHERE status <> 'deleted'`);
    await q.query(`CREATE UNIQUE INDEX agents_phone_number_key ON agents.agents (phone_number) WHERE status <> 'deleted'`);
    await q.query(`CREATE INDEX agents_account_listing_idx ON agents.agents (account_id, created_at DESC, id DESC) WHERE status <> 'deleted'`);
    await q.query(`CREATE TABLE agents.account_usage (account_id text PRIMARY KEY, first_seen_at timestamptz NOT NULL DEFAULT now())`);
    // Source of the built-in provisioner's numbers; CYCLE so released numbers come round again.
    await q.query(`CREATE SEQUENCE agents.provisioned_number_seq MINVALUE 1 MAXVALUE 9999999 CYCLE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP SEQUENCE IF EXISTS agents.provisioned_number_seq');
    await q.query('DROP TABLE IF EXISTS agents.account_usage, agents.agents, agents.checkpoints, agents.events');
  }
}
