import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';
import type { LogFormatSetting } from '../config/config.js';

/** Per-request context so every log line of a request carries its request id. */
export interface RequestContext {
  requestId: string;
  /** The API key the request was made with, when the gateway passed it on (x-actor-key-id). */
  actorKeyId?: string;
  /** The client's address as the gateway saw it (x-client-address). */
  clientAddress?: string;
}
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** Who made the current request, for the metadata of what it records; nulls outside a request. */
export function currentRequestOrigin(): { request_id: string | null; actor_key_id: string | null; client_address: string | null } {
  const context = requestContext.getStore();
  return { request_id: context?.requestId ?? null, actor_key_id: context?.actorKeyId ?? null, client_address: context?.clientAddress ?? null };
}

/**
 * Fields of an error that carry the data being processed rather than the failure: TypeORM's
 * QueryFailedError `query` and `parameters` (whole call events: caller numbers, transcripts),
 * PostgreSQL's `detail` ("Key (…)=(…) already exists") and `where` (the failing statement of
 * a function), and the payload fields of HTTP and RPC client errors.
 */
const ERROR_PAYLOAD_FIELDS = new Set([
  'parameters', 'params', 'query', 'queryText', 'sql', 'values', 'bindings', 'internalQuery',
  'detail', 'where', 'data', 'payload', 'body', 'request', 'response', 'config', 'headers',
]);
/** Nested errors that are serialized (by the same rules) instead of dropped. */
const NESTED_ERROR_FIELDS = new Set(['cause', 'driverError', 'errors']);

/**
 * pino's `err` serializer: what a failure is (type, name, message, stack, code or SQLSTATE,
 * severity, constraint, table, column, errno, syscall…), never the data it was processing.
 * Only primitive fields are kept, minus ERROR_PAYLOAD_FIELDS; objects and arrays are
 * dropped, except a nested cause, driver error or aggregated errors, serialized alike.
 */
export function serializeError(err: unknown): unknown {
  return serializeErrorAt(err, 0, new WeakSet());
}

function serializeErrorAt(err: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof err !== 'object' || err === null) return err;
  if (seen.has(err) || depth > 3) return '[nested error omitted]';
  seen.add(err);
  const out: Record<string, unknown> = {};
  const e = err as Record<string, unknown>;
  const type = (err as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof type === 'string' && type !== 'Object') out.type = type;
  // message, name and stack live on Error's prototype or are not enumerable.
  for (const key of ['message', 'name'] as const) if (typeof e[key] === 'string') out[key] = e[key];
  for (const [key, value] of Object.entries(err)) {
    if (ERROR_PAYLOAD_FIELDS.has(key) || key === 'stack') continue;
    if (NESTED_ERROR_FIELDS.has(key)) {
      if (Array.isArray(value)) out[key] = value.map((v) => serializeErrorAt(v, depth + 1, seen));
      else if (typeof value === 'object' && value !== null) out[key] = serializeErrorAt(value, depth + 1, seen);
      continue;
    }
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
  }
  // Not enumerable on Error and AggregateError.
  const { cause, errors } = err as { cause?: unknown; errors?: unknown };
  if (!('cause' in out) && typeof cause === 'object' && cause !== null) out.cause = serializeErrorAt(cause, depth + 1, seen);
  if (!('errors' in out) && Array.isArray(errors)) out.errors = errors.map((v) => serializeErrorAt(v, depth + 1, seen));
  if (typeof e.stack === 'string') out.stack = e.stack;
  return out;
}

export type LogFormat = 'json' | 'pretty';

/**
 * How the logs of a process are written: LOG_FORMAT `json` or `pretty` as set; `auto` (or unset) is
 * human-readable lines on a terminal and JSON anywhere else (a pipe, a file, a log collector).
 * LOG_FORMAT is validated at start (config.ts, `environment.logFormat`); a value that slipped past counts as `auto`.
 */
export function chooseLogFormat(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean): LogFormat {
  const setting = env.LOG_FORMAT?.trim().toLowerCase() as LogFormatSetting | undefined;
  if (setting === 'json' || setting === 'pretty') return setting;
  return stdoutIsTTY ? 'pretty' : 'json';
}

/**
 * Human-readable lines (pino-pretty, one line per entry, an error's stack below it) written synchronously to
 * `destination`. Each line is rendered from the JSON pino has already serialized, so whatever the serializers
 * leave out of the JSON (serializeError) is left out here too.
 */
export function prettyLines(destination: DestinationStream, options: { colorize?: boolean } = {}): DestinationStream {
  const render = prettyFactory({
    colorize: options.colorize ?? false,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey] ?? '');
      // "api-gateway ready" needs no "api-gateway: " before it.
      return typeof log.service === 'string' && !message.startsWith(log.service) ? `${log.service}: ${message}` : message;
    },
  });
  return { write: (line: string) => void destination.write(render(line)) };
}

/** Numeric pino level of `warn`: what still shows while info logs are quiet. */
const WARN = 40;
let quietInfoLogsHolds = 0;

/**
 * While held, lines below `warn` are left out of this process's stdout logs: `npm start` on a terminal holds
 * them while the apps start, so its banner is not buried under start-up lines. Returns the release (idempotent).
 */
export function quietInfoLogs(): () => void {
  quietInfoLogsHolds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    quietInfoLogsHolds--;
  };
}

/** A destination that wants each line's level, as pino gives it to a stream that asks (`needsMetadataGsym`). */
interface LevelAwareStream extends DestinationStream {
  lastLevel: number;
}

function isLevelAware(stream: DestinationStream): stream is LevelAwareStream {
  return (stream as unknown as Record<symbol, unknown>)[pino.symbols.needsMetadataGsym] === true;
}

/** `target`, minus the lines below `warn` while `quietInfoLogs` holds them (the stdout of createLogger is one). */
export function quietable(target: DestinationStream): DestinationStream {
  // pino sets `lastLevel` on a stream that asks for it, just before writing the line.
  const stream = {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 0,
    write(line: string) {
      if (quietInfoLogsHolds > 0 && stream.lastLevel < WARN) return;
      if (isLevelAware(target)) target.lastLevel = stream.lastLevel;
      target.write(line);
    },
  };
  return stream;
}

/**
 * JSON lines are gathered up to this many bytes and written in one `write`: the gateway logs a line per request,
 * and a system call per line was a tenth of its time on a request that does little else.
 */
export const LOG_BATCH_BYTES = 4096;
/** The longest an info line waits in the batch before it is written anyway, in ms (a quiet process still logs promptly). */
export const LOG_BATCH_MAX_WAIT_MS = 250;

/** pino's asynchronous destination (sonic-boom). */
type SonicBoom = ReturnType<typeof pino.destination>;

/** What flushLogs must empty: the batched destinations created so far. */
const batchedDestinations = new Set<SonicBoom>();

/**
 * JSON lines written to `dest` (a file descriptor, or a file by path) asynchronously in batches: a line waits until
 * LOG_BATCH_BYTES have gathered, or LOG_BATCH_MAX_WAIT_MS have passed. Warnings and errors start a write at once
 * (still asynchronous). What is left is written by `flushLogs` on a graceful stop and, whatever ends the process,
 * synchronously on its 'exit' (pino registers that for every destination it builds).
 */
export function batchedLines(dest: number | string): DestinationStream {
  const destination = pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_BATCH_MAX_WAIT_MS });
  batchedDestinations.add(destination);
  destination.on('close', () => batchedDestinations.delete(destination));
  const stream = {
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 0,
    write(line: string) {
      destination.write(line);
      if (stream.lastLevel >= WARN) destination.flush();
    },
  };
  return stream;
}

/** Waits until `destination` has written what it held (a write in progress at the call is waited for first). */
function drained(destination: SonicBoom): Promise<void> {
  // flush(cb) calls back when the write in progress ends, which may leave a last batch behind: a second call writes it.
  const once = () => new Promise<void>((resolve) => destination.flush(() => resolve()));
  return once().then(once);
}

/**
 * Writes out every line logged so far to a batched destination (the JSON stdout): what a graceful stop awaits
 * before it exits, so no line is lost; bounded by `timeoutMs` in case stdout is blocked.
 */
export async function flushLogs(timeoutMs = 2_000): Promise<void> {
  // A destination that was ended has left the set (its 'close'); one ending meanwhile calls flush's callback with an error.
  const live = [...batchedDestinations];
  if (live.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(live.map(drained)),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

const stdoutStreams = new Map<LogFormat, DestinationStream>();

/**
 * One shared stdout stream per format, quietable. JSON is written asynchronously in batches (batchedLines);
 * human-readable lines synchronously, so on a terminal they interleave with what the process prints itself
 * (the `npm start` banner) in the order written.
 */
function stdoutStream(format: LogFormat): DestinationStream {
  let stream = stdoutStreams.get(format);
  if (!stream) {
    stream = quietable(format === 'pretty' ? prettyLines(pino.destination({ dest: 1, sync: true }), { colorize: isColorSupported }) : batchedLines(1));
    stdoutStreams.set(format, stream);
  }
  return stream;
}

/**
 * Structured logs (pino); `request_id` is mixed in from the async context.
 * `destination` defaults to stdout, as JSON or human-readable lines (chooseLogFormat);
 * tests pass a stream to read the JSON lines back.
 * Errors are logged through `serializeError`: no query parameters or payloads.
 */
export function createLogger(service: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: process.env.LOG_LEVEL ?? 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: serializeError },
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
  };
  return pino(options, destination ?? stdoutStream(chooseLogFormat(process.env, process.stdout.isTTY === true)));
}

/** Routes Nest's own log calls into pino so there is one log format. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
