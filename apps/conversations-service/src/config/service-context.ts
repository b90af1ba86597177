import type { MessageStreams, ReadRouter } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

/** Everything the service's providers share, created once by startConversationsService. */
export interface ServiceContext {
  /** The primary: every write, and every read that must see the latest commit. */
  dataSource: DataSource;
  /** The list, detail, transcript and stats reads: a read replica (DATABASE_READ_URL) when it may serve them, else the primary. */
  reads: ReadRouter;
  /** JetStream, or the in-process stand-in when the apps run in one process. */
  streams: MessageStreams;
  namespace: string | undefined;
  logger: Logger;
  tuning: ServiceTuning;
  /** CALL_EVENTS_REQUIRE_ACCOUNT_SUBJECT: refuse call events on the unscoped subject `call_events.<type>`. */
  requireAccountSubject?: boolean;
}

export interface ServiceTuning {
  /** Redelivery delay of an unacknowledged message (a crash between commit and ack). */
  ackWaitMs: number;
  batchSize: number;
  /** List offsets from which the total is read first and deep pages are read from the nearer end. */
  deepPageOffset: number;
  /** Parked call events replayed per transaction once their agent is known (each takes a lock per conversation). */
  parkedReplayChunk: number;
  /** How often known agents' parked events are looked for (a replay missed after a crash, or one that failed). */
  parkedSweepMs: number;
  /** Accounts with at least this many conversations get their stats from columns in memory (conversation-stats/stats-memory.ts). */
  statsMemoryMinRows: number;
  /** The memory those columns take in one process, all accounts together, in MiB (~72 bytes a conversation). */
  statsMemoryBudgetMb: number;
  /** How often a replica looks for data requests to work on when it has none. */
  dataRequestPollMs: number;
  /** How long a data request stays with the replica working on it without progress (then another takes it over). */
  dataRequestLeaseMs: number;
  /** How often retention is applied (RETENTION_SWEEP_INTERVAL_MS). */
  retentionSweepMs: number;
}

export const DEFAULT_TUNING: ServiceTuning = { ackWaitMs: 5_000, batchSize: 256, deepPageOffset: 10_000, parkedReplayChunk: 500, parkedSweepMs: 3_000,
  statsMemoryMinRows: 20_000, statsMemoryBudgetMb: 512, dataRequestPollMs: 1_000, dataRequestLeaseMs: 30_000, retentionSweepMs: 300_000,
};

export const SERVICE_CONTEXT = Symbol('SERVICE_CONTEXT');
/** The large accounts' columns in memory, one per process, shared by the stats and the list (conversation-stats/stats-memory.ts). */
export const ACCOUNT_COLUMNS = Symbol('ACCOUNT_COLUMNS');

/** A read of the account's data where the context's ReadRouter sends it (the primary when there is none: a handler built by a test). */
export function readFor<T>(ctx: Pick<ServiceContext, 'dataSource'> & Partial<Pick<ServiceContext, 'reads'>>, accountId: string, work: (db: DataSource) => Promise<T>): Promise<T> {
  return ctx.reads ? ctx.reads.read(accountId, work) : work(ctx.dataSource);
}
