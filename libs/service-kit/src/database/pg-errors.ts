/**
 * The one classification of a failure met while doing work against PostgreSQL (or
 * around it), shared by every place that must decide between "retry later", "retry
 * now", "set the input aside" and "report a bug":
 *
 * - `outage`: the database or the network is unavailable or out of resources (refused
 *   or dropped connection, server starting or shutting down, no free connection, disk
 *   full, out of memory, a read-only standby after a failover, a statement timeout or
 *   cancellation). Nothing is the input's fault: retry later, never blame the message.
 * - `lost_race`: the transaction lost to a concurrent one (serialization failure 40001,
 *   deadlock 40P01, lock not available 55P03): the same work can succeed at once.
 * - `data_fault`: the input's own fault; the same write fails the same way every time,
 *   so retrying it forever only blocks what comes after it. SQLSTATE classes 22 (data
 *   exception), 23 (integrity constraint violation), 54 and P0 (below).
 * - `defect`: anything else: a bug in our code or schema (a missing table, a
 *   permission, an internal error), fixed by a deployment rather than by the input.
 *
 * Class 54 (program limit exceeded: a row or index entry too big, too many columns or
 * arguments, a statement too complex) is a `data_fault`: the limit is reached by the
 * size or shape of what is written, so the same write reaches it on every attempt.
 * A limit reached only by a large batch is not blamed on any one message, because
 * callers only set a message aside after it failed on its own.
 *
 * Class P0 (PL/pgSQL: RAISE from a trigger or function, P0001; no or too many rows for
 * SELECT INTO STRICT; a failed ASSERT) is a `data_fault`: our triggers and functions
 * raise in answer to the row they are given, so a trigger that refuses a row refuses
 * that row on every attempt, and retrying it forever would block its stream.
 *
 * A unique violation (23505) is a `data_fault` here; where a unique violation means a
 * concurrent insert of the same thing, the caller knows it (by its constraint) and
 * handles it before asking for a classification.
 */

export type FailureClass = 'outage' | 'lost_race' | 'data_fault' | 'defect';

/**
 * Node's error codes for a connection that cannot be made or was lost: the peer is
 * down, unknown or unreachable. EPIPE is not among them: a bare EPIPE says only that
 * some pipe or socket lost its reader (a child process, a log stream, a response), so
 * only a caller that knows the socket was a dependency's may read it as an outage.
 */
export const CONNECTION_LOST_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET',
]);

/**
 * A bare EPIPE: a write to a socket (or pipe) whose reader closed it. An outage only
 * for a caller that knows the socket was a dependency's, e.g. because the database's
 * connection is the only socket the failed work wrote to.
 */
export function isBrokenPipe(err: unknown): boolean {
  return (err as { code?: unknown } | null | undefined)?.code === 'EPIPE';
}

export const PG_UNIQUE_VIOLATION = '23505';
export const PG_SERIALIZATION_FAILURE = '40001';
export const PG_DEADLOCK = '40P01';

/** PostgreSQL errors surface through TypeORM's QueryFailedError with `driverError`, or bare from pg. */
export function pgErrorOf(err: unknown): { code?: string; constraint?: string } {
  const e = err as { driverError?: { code?: string; constraint?: string }; code?: string; constraint?: string };
  return e?.driverError ?? e ?? {};
}

/**
 * The SQLSTATE of a PostgreSQL error (a pg `DatabaseError`, or TypeORM's QueryFailedError
 * wrapping one), else undefined. Node's own error codes (ECONNREFUSED, EPIPE…) are not
 * SQLSTATEs: no SQLSTATE class starts with E.
 */
export function sqlStateOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null | undefined;
  for (const code of [e?.driverError?.code, e?.code]) {
    if (typeof code === 'string' && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code)) return code;
  }
  return undefined;
}

/** SQLSTATEs that mean the server cannot take work from us right now (shutdown, start-up, no free connection). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|does not allow connections|not currently accepting connections|the database system is (starting up|shutting down)/i;

/**
 * Outages reported by a working server: a read-only server (a standby after a failover),
 * a statement timeout or cancellation, an administrator's shutdown, and the classes 53
 * (insufficient resources: disk full, out of memory, too many connections) and 58
 * (system errors).
 */
const OUTAGE_SQLSTATES = new Set(['25006', '57014', '57P04']);
const OUTAGE_SQLSTATE_CLASSES = new Set(['53', '58']);
const LOST_RACE_SQLSTATES = new Set([PG_SERIALIZATION_FAILURE, PG_DEADLOCK, '55P03']);
const DATA_FAULT_SQLSTATE_CLASSES = new Set(['22', '23', '54', 'P0']);

/**
 * True when an error means the database cannot be reached right now (refused or
 * dropped connection, server shutting down or starting, no free connection), as
 * opposed to a bug in a query. Callers answer those with 503, not 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; message?: string; driverError?: { code?: string; message?: string } } | undefined;
  if (e?.name !== undefined && RELEASED_RUNNER_ERRORS.has(e.name)) return true;
  const code = e?.driverError?.code ?? e?.code;
  if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_LOST_CODES.has(code))) return true;
  return UNAVAILABLE_MESSAGE.test(`${e?.driverError?.message ?? ''} ${e?.message ?? ''}`);
}

/** Which of the four kinds a failure is (see the top of this file); anything not recognised is a `defect`. */
export function classifyFailure(err: unknown): FailureClass {
  if (isDatabaseUnavailable(err)) return 'outage';
  const code = sqlStateOf(err);
  if (code === undefined) return 'defect';
  const sqlClass = code.slice(0, 2);
  if (LOST_RACE_SQLSTATES.has(code)) return 'lost_race';
  if (OUTAGE_SQLSTATES.has(code) || OUTAGE_SQLSTATE_CLASSES.has(sqlClass)) return 'outage';
  if (DATA_FAULT_SQLSTATE_CLASSES.has(sqlClass)) return 'data_fault';
  return 'defect';
}

/** An outage or a lost race: another attempt of the same work can get past it, and no input is at fault. */
export function isTransientFailure(err: unknown): boolean {
  const failure = classifyFailure(err);
  return failure === 'outage' || failure === 'lost_race';
}

/** The input's own fault: the same write fails the same way on every attempt. */
export function isDataFailure(err: unknown): boolean {
  return classifyFailure(err) === 'data_fault';
}

/**
 * TypeORM's answers to a query on a transaction whose connection the server terminated meanwhile (57P01 on the
 * socket, the runner released under it; the second comes through a transaction's EntityManager): the database
 * went away under the request, nothing about the input.
 */
const RELEASED_RUNNER_ERRORS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * Reported by the database or its connection, as opposed to thrown by our own code:
 * a `defect` that is not one is a bug in the code handling the input, which may be
 * triggered by that input alone.
 */
export function isDatabaseFailure(err: unknown): boolean {
  return sqlStateOf(err) !== undefined || isDatabaseUnavailable(err);
}
