/**
 * Reads served by a streaming replica (DATABASE_READ_URL) while it is healthy and has replayed the reader's
 * own writes; by the primary otherwise, without an error. The rules are in read-routing.rules.ts.
 *
 * - A monitor looks at the replica every `checkIntervalMs`: its replay position against the primary's, and
 *   the age of what it replayed last. Beyond `maxLagMs`, or unreachable, or not a standby: reads go to the
 *   primary until a later look finds it fit again. Each change of state is logged once (the URL without its
 *   credentials).
 * - A read that fails on the replica (it went away between two looks, or a replay conflict cancelled the
 *   query) is run again on the primary; an outage also marks the replica unreachable at once.
 * - `wrote(account)` after a commit records the primary's WAL position as that account's mark: the account's
 *   reads stay on the primary until the replica has replayed past it. `shareMarksOver` sends the marks to the
 *   service's other replicas over core NATS, so the one that answers the next read knows too.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { namespacedSubject, type ReadReplicaStatus } from '@voice/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { redactUrl } from '../config/config.js';
import { keepClientErrorsHandled, SESSION_SETTINGS } from './database.js';
import { classifyFailure, isDatabaseFailure } from './pg-errors.js';
import {
  formatLsn, lagOf, parseLsn, readPoolFor, replicaStateOf, transitionMessage, type Lsn, type ReadPool, type ReplicaLag, type ReplicaObservation, type ReplicaState,
} from './read-routing.rules.js';

export interface ReadRouterOptions {
  primary: DataSource;
  /** DATABASE_READ_URL; unset → every read on the primary, nothing else done. */
  url?: string;
  /** The service's schema (the replica's DataSource runs no migrations: it replays the primary's). */
  schema: string;
  /** DATABASE_READ_MAX_LAG_MS: beyond this the replica serves nothing. */
  maxLagMs?: number;
  checkIntervalMs?: number;
  poolSize?: number;
  applicationName?: string;
  /** Accounts whose marks are kept one by one; past it, one mark covers every account (exact, bounded). */
  maxMarks?: number;
  logger: Logger;
}

/** What /health shows of the replica. */
export interface ReadReplicaHealth {
  state: ReplicaState;
  /** How old the data the replica serves is (0 when caught up); null when unknown. */
  lag_ms: number | null;
  lag_bytes: number | null;
  max_lag_ms: number;
  /** Reads it served and reads the primary served instead, since start. */
  reads: { replica: number; primary: number };
}

/** The replica as a service's health reply carries it (contracts ReadReplicaStatus), for a configured replica. */
export function readReplicaStatus(health: ReadReplicaHealth): ReadReplicaStatus {
  const finite = (n: number | null) => (n === null || !Number.isFinite(n) ? null : n);
  return { state: health.state === 'absent' ? 'unreachable' : health.state, lag_ms: finite(health.lag_ms), lag_bytes: finite(health.lag_bytes), max_lag_ms: health.max_lag_ms };
}

/** The NATS subject on which a service's processes share their write marks (ReadRouter.shareMarksOver). */
export function readMarksSubject(namespace: string | undefined, service: string): string {
  return namespacedSubject(namespace ?? '', `${service}.read_marks`);
}

export const DEFAULT_READ_MAX_LAG_MS = 5_000;
const DEFAULT_CHECK_INTERVAL_MS = 250;
const DEFAULT_MAX_MARKS = 100_000;

export class ReadRouter {
  private replica: DataSource | undefined;
  private opening: Promise<DataSource | undefined> | undefined;
  private state: ReplicaState;
  /** The state last logged: each change is logged once. */
  private logged: ReplicaState | undefined;
  private observation: ReplicaObservation | undefined;
  private lag: ReplicaLag | undefined;
  private readonly marks = new Map<string, Lsn>();
  /** Accounts written whose LSN could not be read: on the primary until a look at the primary that began after the write gives one. */
  private readonly unplaced = new Map<string, number>();
  private everyoneMark: Lsn | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private closed = false;
  private readonly counts = { replica: 0, primary: 0 };
  private sharing: { nc: NatsConnection; subject: string; subscription: Subscription } | undefined;
  private readonly instance = randomUUID();
  readonly maxLagMs: number;

  private constructor(private readonly options: ReadRouterOptions) {
    this.maxLagMs = options.maxLagMs ?? DEFAULT_READ_MAX_LAG_MS;
    this.state = options.url ? 'unreachable' : 'absent';
  }

  /** Starts the monitor and resolves after its first look (a replica down at start is not an error). */
  static async open(options: ReadRouterOptions): Promise<ReadRouter> {
    const router = new ReadRouter(options);
    if (options.url) {
      await router.check();
      router.timer = setInterval(() => void router.check(), options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
      router.timer.unref();
    }
    return router;
  }

  /** Every read on the primary: no replica, no monitor (one-process tools, tests). */
  static primaryOnly(primary: DataSource, schema: string, logger: Logger): ReadRouter {
    return new ReadRouter({ primary, schema, logger });
  }

  get configured(): boolean {
    return this.state !== 'absent';
  }

  /** The pool a read of `accountId` would be served by now. */
  poolFor(accountId?: string): ReadPool {
    if (accountId !== undefined && this.unplaced.has(accountId)) return 'primary';
    return readPoolFor({
      state: this.replica ? this.state : this.configured ? 'unreachable' : 'absent',
      replayLsn: this.observation?.replayLsn,
      accountWriteLsn: accountId === undefined ? undefined : this.marks.get(accountId),
      everyoneWriteLsn: this.everyoneMark,
    });
  }

  /**
   * Runs a read of the account's data on the replica when it may serve it, else on the primary. `work` must
   * only read, and may run twice (on the replica, then on the primary if the replica failed it).
   */
  async read<T>(accountId: string | undefined, work: (db: DataSource) => Promise<T>): Promise<T> {
    const replica = this.replica;
    if (this.poolFor(accountId) === 'primary' || !replica) {
      if (this.configured) this.counts.primary++;
      return work(this.options.primary);
    }
    try {
      const result = await work(replica);
      this.counts.replica++;
      return result;
    } catch (err) {
      if (!isDatabaseFailure(err)) throw err;
      if (classifyFailure(err) === 'outage') this.moveTo('unreachable');
      else this.options.logger.debug({ err }, 'a read failed on the read replica; served by the primary');
      this.counts.primary++;
      return work(this.options.primary);
    }
  }

  /**
   * After a commit that changed the account's data: its reads stay on the primary until the replica has
   * replayed this far. Costs one query on the primary, and only when a replica is configured.
   */
  async wrote(accountId: string): Promise<void> {
    if (!this.configured || this.closed) return;
    const failedAt = Date.now();
    let position: Lsn | undefined;
    try {
      const [{ lsn }] = await this.options.primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      position = parseLsn(lsn);
    } catch (err) {
      // The write committed; its answer must not fail for this. The account reads the primary until a later
      // look at the primary gives a position at least as far as the write's.
      this.options.logger.debug({ err }, "the write's WAL position could not be read");
    }
    if (position === undefined) {
      this.unplaced.set(accountId, failedAt);
      return;
    }
    this.remember(accountId, position);
    if (this.sharing) {
      this.sharing.nc.publish(this.sharing.subject, JSON.stringify({ from: this.instance, account_id: accountId, lsn: formatLsn(position) }));
    }
  }

  /**
   * Sends this process's marks to the service's other processes and takes theirs (core NATS, every process
   * subscribed, no queue group): whichever replica of the service answers the next read knows the write.
   */
  shareMarksOver(nc: NatsConnection, subject: string): void {
    if (!this.configured || this.sharing) return;
    const subscription = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const mark = JSON.parse(new TextDecoder().decode(msg.data)) as { from?: string; account_id?: string; lsn?: string };
          const lsn = parseLsn(mark.lsn);
          if (mark.from !== this.instance && typeof mark.account_id === 'string' && lsn !== undefined) this.remember(mark.account_id, lsn);
        } catch {
          // not a mark: ignored
        }
      },
    });
    this.sharing = { nc, subject, subscription };
  }

  health(): ReadReplicaHealth {
    return {
      state: this.state,
      lag_ms: this.lag?.ms ?? null,
      lag_bytes: this.lag?.bytes ?? null,
      max_lag_ms: this.maxLagMs,
      reads: { ...this.counts },
    };
  }

  /** Looks at the replica now (the monitor does it every interval). */
  async check(): Promise<void> {
    if (this.closed || !this.options.url) return;
    this.checking ??= this.observe().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    try {
      this.sharing?.subscription.unsubscribe();
    } catch {
      // the connection closed first: nothing to unsubscribe from
    }
    await this.checking?.catch(() => undefined);
    await this.opening?.catch(() => undefined);
    if (this.replica?.isInitialized) await this.replica.destroy().catch(() => undefined);
    this.replica = undefined;
  }

  private remember(accountId: string, lsn: Lsn): void {
    const replayed = this.observation?.replayLsn;
    if (replayed !== undefined && replayed >= lsn) return;
    const known = this.marks.get(accountId);
    if (known !== undefined && known >= lsn) return;
    if (this.marks.size >= (this.options.maxMarks ?? DEFAULT_MAX_MARKS) && known === undefined) {
      // Too many accounts to remember one by one: one mark for everyone, as high as the highest kept.
      let highest = lsn;
      for (const mark of this.marks.values()) if (mark > highest) highest = mark;
      if (this.everyoneMark === undefined || highest > this.everyoneMark) this.everyoneMark = highest;
      this.marks.clear();
      return;
    }
    this.marks.set(accountId, lsn);
  }

  private async observe(): Promise<void> {
    const startedAt = Date.now();
    const replica = await this.openReplica();
    let observation: ReplicaObservation = { reachable: false };
    if (replica) {
      try {
        const [{ lsn: primaryLsn }] = await this.options.primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn');
        const [row] = await replica.query(
          `SELECT pg_is_in_recovery() AS in_recovery, pg_last_wal_replay_lsn()::text AS replay_lsn,
                  (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_ms`,
        );
        observation = {
          reachable: true,
          inRecovery: row.in_recovery,
          replayLsn: parseLsn(row.replay_lsn),
          primaryLsn: parseLsn(primaryLsn),
          sinceLastReplayMs: row.since_ms === null ? undefined : Number(row.since_ms),
        };
      } catch (err) {
        this.options.logger.debug({ err }, 'read replica check failed');
      }
    }
    if (this.closed) return;
    this.observation = observation;
    this.lag = lagOf(observation);
    const replayed = observation.replayLsn;
    if (observation.primaryLsn !== undefined) {
      for (const [account, at] of this.unplaced) {
        if (at >= startedAt) continue;
        this.unplaced.delete(account);
        this.remember(account, observation.primaryLsn);
      }
    }
    if (replayed !== undefined) {
      for (const [account, mark] of this.marks) if (mark <= replayed) this.marks.delete(account);
      if (this.everyoneMark !== undefined && this.everyoneMark <= replayed) this.everyoneMark = undefined;
    }
    this.moveTo(replicaStateOf(observation, this.maxLagMs));
  }

  private moveTo(state: Exclude<ReplicaState, 'absent'>): void {
    this.state = state;
    const message = transitionMessage(this.logged, state, this.lag, this.maxLagMs);
    this.logged = state;
    if (!message) return;
    const where = { replica: redactUrl(this.options.url ?? ''), lag_ms: this.lag?.ms ?? null, lag_bytes: this.lag?.bytes ?? null };
    if (state === 'ok') this.options.logger.info(where, message);
    else this.options.logger.warn(where, message);
  }

  /** The replica's DataSource, opened on first use and again after a failed open (the replica was down at start). */
  private async openReplica(): Promise<DataSource | undefined> {
    if (this.replica) return this.replica;
    this.opening ??= (async () => {
      const dataSource = new DataSource({
        type: 'postgres',
        url: this.options.url,
        schema: this.options.schema,
        synchronize: false,
        logging: false,
        applicationName: `${this.options.applicationName ?? this.options.schema}-read`,
        extra: { max: this.options.poolSize ?? 10, connectionTimeoutMillis: 2_000, options: SESSION_SETTINGS },
      });
      try {
        await dataSource.initialize();
        keepClientErrorsHandled(dataSource);
        if (this.closed) {
          await dataSource.destroy();
          return undefined;
        }
        this.replica = dataSource;
        return dataSource;
      } catch (err) {
        this.options.logger.debug({ err }, 'read replica cannot be opened yet');
        if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
        return undefined;
      }
    })().finally(() => (this.opening = undefined));
    return this.opening;
  }
}
