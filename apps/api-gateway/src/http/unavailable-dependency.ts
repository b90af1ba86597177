/** Node socket errors and PostgreSQL SQLSTATEs that mean "the database is not reachable right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
]);

const UNAVAILABLE_MESSAGES = [/Connection terminated/i, /timeout exceeded when trying to connect/i, /Client has encountered a connection error/i];

/**
 * True when an error means a dependency is down rather than our code being
 * wrong: the client should get 503 and retry, not 500. pg errors surface
 * directly or wrapped by TypeORM (`driverError`).
 */
export function isUnavailableDependency(err: unknown): boolean {
  for (const candidate of [err, (err as { driverError?: unknown } | undefined)?.driverError]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}
