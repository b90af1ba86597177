import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { ConfigError, environment, readConfig, redactUrl, type ConfigReader } from '../config/config.js';
import { createLogger, flushLogs, quietInfoLogs } from '../logging/logging.js';
import { limitHeapGrowth } from './heap-growth.js';
import { natsConnectionOptions } from '../bus/nats-connection.js';
import { CONNECTION_LOST_CODES } from '../database/pg-errors.js';

export interface Closeable {
  close(): Promise<void>;
}

/**
 * `npm start` on a terminal starts each app with this argument: info lines stay quiet (warnings and errors
 * still show) until the launcher sends `{ type: RESUME_INFO_LOGS }` over IPC, after its banner.
 */
export const QUIET_START_ARGUMENT = '--quiet-start';
export const RESUME_INFO_LOGS = 'resume-info-logs';

/** A start-up failure the operator can act on: printed as one line, no stack trace. */
export class StartupError extends Error {}

/**
 * The process entry point of every app: read the configuration (reading it and
 * calling `config.done()` is `boot`'s job; LOG_LEVEL is read here for every app),
 * start, log readiness, and shut down once on SIGINT/SIGTERM — or when the parent
 * that spawned it over IPC (`npm start`) goes away. Bad configuration, an
 * unreachable PostgreSQL or NATS, or a port in use print one line and exit 1;
 * anything else is logged as fatal.
 */
export function runService(name: string, boot: (config: ConfigReader) => Promise<{ service: Closeable; details?: Record<string, unknown> }>): void {
  const config = readConfig(process.env);
  const level = environment.logLevel(config);
  environment.logFormat(config);
  limitHeapGrowth(environment.heapGrowthPercent(config));
  // pino wants the level in lower case; the rule accepts any case.
  if (process.env.LOG_LEVEL?.trim()) process.env.LOG_LEVEL = level;
  let logger: Logger | undefined;
  // Created only once the configuration is known to be valid (pino throws on an unknown level).
  const log = () => (logger ??= createLogger(name));

  let service: Closeable | undefined;
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    if (!service) process.exit(0); // not started yet: nothing to close but sockets, which exit closes
    log().info({ signal: reason }, `${name} stopping`);
    try {
      await service.close();
    } catch (err) {
      log().error({ err }, `${name} did not shut down cleanly`);
      await flushLogs();
      process.exit(1);
    }
    // Log lines are written in batches: the last ones go out before the exit.
    await flushLogs();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Spawned by `npm start` with an IPC channel: if the launcher dies (even by SIGKILL), stop too.
  if (process.send) {
    process.on('disconnect', () => void stop('parent exited'));
    // On a terminal the launcher asks for quiet info logs until its banner is printed (QUIET_START_ARGUMENT).
    if (process.argv.includes(QUIET_START_ARGUMENT)) {
      const resume = quietInfoLogs();
      process.on('message', (message: unknown) => {
        if ((message as { type?: unknown } | null)?.type === RESUME_INFO_LOGS) resume();
      });
    }
    process.channel?.unref();
  }

  boot(config)
    .then((started) => {
      service = started.service;
      if (stopping) {
        stopping = false;
        return stop('stopped while starting');
      }
      log().info(started.details ?? {}, `${name} ready`);
      // Whoever started the process waits for this line: written now, not with the next batch.
      void flushLogs();
    })
    .catch(async (err: unknown) => {
      if (stopping) process.exit(0);
      const explained = err instanceof ConfigError || err instanceof StartupError ? err : await explainStartFailure(err);
      if (explained instanceof ConfigError) console.error(explained.message);
      else if (explained instanceof StartupError) console.error(`${name} cannot start: ${explained.message}`);
      else log().fatal({ err }, `${name} failed to start`);
      await flushLogs();
      process.exit(1);
    });
}

/** A probe writes only to the dependency it probes: a broken pipe there is that dependency closing on us. */
const NETWORK_CODES = new Set([...CONNECTION_LOST_CODES, 'EPIPE']);

/**
 * What went wrong at start, in one line, when the cause is one the operator fixes
 * outside the code: a port in use, or PostgreSQL or NATS that cannot be reached or
 * refuses us. The dependencies are probed again (only on failure) so the message
 * names the right one; anything else comes back unchanged.
 */
export async function explainStartFailure(err: unknown, env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const e = err as { code?: string; port?: number; address?: string; syscall?: string } | undefined;
  if (e?.syscall === 'listen' && (e.code === 'EADDRINUSE' || e.code === 'EACCES')) {
    const where = `HTTP port ${e.port} on ${e.address ?? env.HOST ?? '0.0.0.0'}`;
    return new StartupError(
      e.code === 'EADDRINUSE' ? `${where} is already in use (set PORT to another port, or stop what is using it)` : `${where} needs privileges this process does not have (set PORT to 1024 or above)`,
    );
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl) {
    const problem = await probePostgres(databaseUrl);
    if (problem) return new StartupError(`PostgreSQL at ${redactUrl(databaseUrl)} ${problem}`);
  }
  const migrationUrl = env.DATABASE_MIGRATION_URL?.trim();
  if (migrationUrl) {
    const problem = await probePostgres(migrationUrl);
    if (problem) return new StartupError(`PostgreSQL at ${redactUrl(migrationUrl)} (DATABASE_MIGRATION_URL) ${problem}`);
  }
  const natsUrl = env.NATS_URL?.trim();
  if (natsUrl) {
    const problem = await probeNats(natsUrl);
    if (problem) return new StartupError(`NATS at ${redactUrl(natsUrl)} ${problem}`);
  }
  return err;
}

function networkCode(err: unknown): string | undefined {
  const e = err as { code?: string; errors?: unknown[]; cause?: unknown } | undefined;
  if (e?.code && NETWORK_CODES.has(e.code)) return e.code;
  for (const inner of [...(e?.errors ?? []), e?.cause]) {
    const code = inner ? networkCode(inner) : undefined;
    if (code) return code;
  }
  return undefined;
}

/** Undefined when PostgreSQL answers; otherwise why not, as the end of a sentence. */
async function probePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    const code = networkCode(err);
    if (code) return `is unreachable (${code}); is it running, and is DATABASE_URL right?`;
    const message = (err as Error).message || String(err);
    return /timeout/i.test(message) ? 'did not answer within 5 s; is DATABASE_URL right?' : `refused the connection: ${message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeNats(url: string): Promise<string | undefined> {
  try {
    const nc = await connect({ ...natsConnectionOptions(url), timeout: 5_000, reconnect: false, name: 'start-probe' });
    await nc.close();
    return undefined;
  } catch (err) {
    const code = networkCode(err);
    const message = (err as Error).message || String(err);
    return code || /refused|timeout|ENOTFOUND/i.test(message)
      ? `is unreachable (${code ?? message}); is it running (with JetStream), and is NATS_URL right?`
      : `refused the connection: ${message}`;
  }
}
