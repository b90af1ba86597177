/**
 * Which database serves a read when a service has a streaming replica (DATABASE_READ_URL): the rules alone,
 * without connections, so every case is tested as a pure function (read-routing.rules.spec.ts).
 *
 * Read-your-writes: a write records the primary's WAL position after its commit (its LSN) as a mark on the
 * account it changed; a read of that account is served by the replica only once the replica has replayed
 * at least up to that LSN, and by the primary until then. Marks are dropped once the replica has passed them.
 */

/** A WAL position as PostgreSQL prints it (`16/B374D848`), as a number that compares. */
export type Lsn = bigint;

export function parseLsn(text: string | null | undefined): Lsn | undefined {
  if (!text) return undefined;
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text.trim());
  if (!match) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * - `absent`: no DATABASE_READ_URL; every read goes to the primary.
 * - `ok`: the replica answers, replays, and is within the lag bound: it serves reads.
 * - `lagging`: it answers but is further behind than DATABASE_READ_MAX_LAG_MS (or its replay is paused and the primary moved on).
 * - `unreachable`: it does not answer, or is not a standby (promoted, or a wrong URL).
 */
export type ReplicaState = 'absent' | 'unreachable' | 'lagging' | 'ok';

/** One look at the replica (and the primary's position at about the same moment). */
export interface ReplicaObservation {
  /** False when the replica could not be queried. */
  reachable: boolean;
  /** pg_is_in_recovery() on the replica: a server that is not a standby does not receive the primary's writes. */
  inRecovery?: boolean;
  /** pg_last_wal_replay_lsn() on the replica. */
  replayLsn?: Lsn;
  /** pg_current_wal_insert_lsn() on the primary, read just before the replica's position. */
  primaryLsn?: Lsn;
  /** now() − pg_last_xact_replay_timestamp() on the replica, in ms; meaningless once the replica has caught up. */
  sinceLastReplayMs?: number;
}

export interface ReplicaLag {
  /** WAL bytes the replica has still to replay; 0 when it has caught up. */
  bytes: number;
  /**
   * How old the data it serves is: 0 when it has replayed everything the primary had written, else the age
   * of the last transaction it replayed. (The replay timestamp alone grows while the primary is idle, and
   * would call an idle, caught-up replica late.)
   */
  ms: number;
}

export function lagOf(observation: ReplicaObservation): ReplicaLag | undefined {
  if (!observation.reachable || observation.replayLsn === undefined || observation.primaryLsn === undefined) return undefined;
  const behind = observation.primaryLsn - observation.replayLsn;
  if (behind <= 0n) return { bytes: 0, ms: 0 };
  return { bytes: Number(behind), ms: Math.max(0, Math.round(observation.sinceLastReplayMs ?? Number.POSITIVE_INFINITY)) };
}

export function replicaStateOf(observation: ReplicaObservation | undefined, maxLagMs: number): Exclude<ReplicaState, 'absent'> {
  if (!observation?.reachable || observation.inRecovery === false || observation.replayLsn === undefined) return 'unreachable';
  const lag = lagOf(observation);
  if (lag === undefined) return 'unreachable';
  return lag.ms > maxLagMs ? 'lagging' : 'ok';
}

export interface ReadRoutingInput {
  state: ReplicaState;
  /** The replica's replay position at its last observation. */
  replayLsn?: Lsn;
  /** The LSN of the latest write to the read's account that the replica may not have replayed yet. */
  accountWriteLsn?: Lsn;
  /**
   * When more accounts had marks than are kept, the highest LSN among them: until the replica passes it,
   * every read goes to the primary (exact, and bounded in memory).
   */
  everyoneWriteLsn?: Lsn;
}

export type ReadPool = 'replica' | 'primary';

/** The pool that serves a read: the replica when it is healthy and has replayed the reader's own writes. */
export function readPoolFor(input: ReadRoutingInput): ReadPool {
  if (input.state !== 'ok' || input.replayLsn === undefined) return 'primary';
  for (const mark of [input.accountWriteLsn, input.everyoneWriteLsn]) {
    if (mark !== undefined && input.replayLsn < mark) return 'primary';
  }
  return 'replica';
}

/** The log line of a change of state, or undefined when the state is the same (logged once per transition). */
export function transitionMessage(from: ReplicaState | undefined, to: ReplicaState, lag: ReplicaLag | undefined, maxLagMs: number): string | undefined {
  if (from === to) return undefined;
  switch (to) {
    case 'ok':
      return from === undefined ? 'read replica serving reads' : 'read replica serving reads again';
    case 'lagging':
      return `read replica is ${lag?.ms ?? '?'} ms behind (bound ${maxLagMs} ms): reads go to the primary`;
    case 'unreachable':
      return 'read replica unreachable (or not a standby): reads go to the primary';
    case 'absent':
      return undefined;
  }
}
