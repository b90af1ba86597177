import type { MigrationInterface, QueryRunner } from 'typeorm';
import { moveTables, type TableLayout } from '@voice/service-kit';

/**
 * The read model, its side tables and the event store, each partitioned by the hash of account_id into 16 tables.
 * Every read and write names one account, so each touches one partition and its indexes hold a sixteenth of the rows
 * of all accounts: a trigram search of one account no longer walks the postings of every other account's calls.
 * Hash, not time: lists without a date range (most of them) would otherwise read every time partition, and retention
 * is set per agent, so no time partition could ever be dropped whole. The event store's key gains account_id, which
 * a partitioned table's keys must include (global_position stays unique: it comes from one sequence).
 */
export const READ_MODEL_PARTITIONS = 16;
const TABLES: Array<{ table: string; primaryKey?: string[]; plainPrimaryKey?: string[] }> = [
  // In the order a call-event batch writes them (events first), though the move takes them all or none.
  { table: 'events', primaryKey: ['account_id', 'global_position'], plainPrimaryKey: ['global_position'] },
  { table: 'conversations' },
  { table: 'conversation_search' },
  { table: 'conversation_topics' },
];

export const PARTITIONED_BY_ACCOUNT: TableLayout[] = TABLES.map(({ table, primaryKey }) => ({
  schema: 'conversations', table, primaryKey, hashPartitions: { column: 'account_id', partitions: READ_MODEL_PARTITIONS },
}));
const UNPARTITIONED: TableLayout[] = TABLES.map(({ table, plainPrimaryKey }) => ({ schema: 'conversations', table, primaryKey: plainPrimaryKey }));

export class PartitionedByAccount1766000000000 implements MigrationInterface {
  name = 'PartitionedByAccount1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await moveTables(q, PARTITIONED_BY_ACCOUNT);
  }

  async down(q: QueryRunner): Promise<void> {
    await moveTables(q, UNPARTITIONED);
  }
}
