import { openDatabase } from '@voice/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';
import { foldConversation } from '../conversation/conversation.evolve.js';
import { projectConversations } from '../conversation/conversation.store.js';
import { CONVERSATIONS_SCHEMA, conversationsMigrations } from '../database/conversations-database.js';
import {
  beginRebuildSnapshot, commitRebuild, compareLiveWithRebuilt, countLiveAndRebuiltRows, countStreams, createRebuiltTable, lockReadModel,
  readStreamsAfter, REBUILT_TABLE, replaceLiveWithRebuilt, rollBackRebuild, sideTablesMatchLiveRows, stampRebuiltWriteTimes,
} from './rebuild-projection.store.js';

export interface RebuildReport {
  projection: 'conversations';
  streams: number;
  live_rows: number;
  rebuilt_rows: number;
  /** Conversations with events but no live row. */
  missing: number;
  /** Live rows without events. */
  extra: number;
  /** Rows present in both that differ in any column. */
  different: number;
  /** Whether the side tables (account_totals, conversation_counts, conversation_topics, conversation_search) agree with the rows. */
  totals_identical: boolean;
  /** A few ids of each kind of difference, for a look. */
  examples: string[];
  identical: boolean;
  swapped: boolean;
}

const CHUNK = 500;

/**
 * Rebuild the list read model from the event store beside the live one, in one
 * snapshot, and compare them row by row (every column, timestamps included: a
 * row's created_at/updated_at are the write times of its first/last events). With
 * `swap`, ingestion is paused by a table lock and the live rows are replaced.
 */
export interface RebuildOptions {
  swap?: boolean;
  /** Called after each chunk of streams is re-folded: streams done so far, and how many there are. */
  onProgress?: (done: number, total: number) => void;
}

export async function rebuildConversationsProjection(options: ({ databaseUrl: string } | { dataSource: DataSource }) & RebuildOptions): Promise<RebuildReport> {
  const dataSource = 'dataSource' in options
    ? options.dataSource
    : await openDatabase({ url: options.databaseUrl, schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 2, applicationName: 'rebuild-projection' });
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await beginRebuildSnapshot(runner);
    // Taken before the first read, so the snapshot cannot miss a concurrent ingest.
    if (options.swap) await lockReadModel(runner);
    await createRebuiltTable(runner);
    const streams = await refold(runner, options.onProgress);
    await stampRebuiltWriteTimes(runner);
    const diff = await compareLiveWithRebuilt(runner);
    const { live_rows, rebuilt_rows } = await countLiveAndRebuiltRows(runner);
    const totals_identical = await sideTablesMatchLiveRows(runner);
    const identical = diff.missing + diff.extra + diff.different === 0 && totals_identical;
    let swapped = false;
    if (options.swap && !identical) {
      await replaceLiveWithRebuilt(runner);
      swapped = true;
    }
    await commitRebuild(runner);
    return {
      projection: 'conversations', streams, live_rows, rebuilt_rows, missing: diff.missing, extra: diff.extra, different: diff.different,
      totals_identical, examples: diff.examples ?? [], identical, swapped,
    };
  } catch (err) {
    await rollBackRebuild(runner).catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
    if (!('dataSource' in options)) await dataSource.destroy();
  }
}

/**
 * Fold every stream into `rebuilt`, a chunk of streams at a time. A stream is (account_id, stream_id); its
 * platform is the one kept with its first stored event, as the live projection does.
 */
async function refold(runner: QueryRunner, onProgress?: (done: number, total: number) => void): Promise<number> {
  let after: [string, string] = ['', ''];
  let streams = 0;
  const total = onProgress ? await countStreams(runner) : 0;
  onProgress?.(0, total);
  for (;;) {
    const chunk = await readStreamsAfter(runner, after, CHUNK);
    if (chunk.length === 0) return streams;
    const folded = chunk.flatMap((stream) => {
      const state = foldConversation(stream.events);
      return state ? [{ state, accountId: stream.account_id, streamVersion: stream.version, voicePlatform: stream.voice_platform }] : [];
    });
    await projectConversations(runner, folded, null, REBUILT_TABLE);
    streams += chunk.length;
    onProgress?.(streams, total);
    const last = chunk[chunk.length - 1];
    after = [last.account_id, last.stream_id];
  }
}
