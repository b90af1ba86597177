/**
 * Environment configuration, checked at start: every problem is reported at
 * once with the variable's name, instead of a stack trace later.
 */
import { isPlainObject } from '@voice/contracts';

export class ConfigError extends Error {}

export interface ConfigReader {
  string(name: string, fallback?: string): string;
  optionalString(name: string): string | undefined;
  int(name: string, fallback: number, range?: { min?: number; max?: number }): number;
  /** Unset → undefined (the consumer's own default applies); set → must be an integer in range. */
  optionalInt(name: string, range?: { min?: number; max?: number }): number | undefined;
  url(name: string, protocols: string[], fallback?: string): string;
  /** Unset → undefined; set → must be a URL (or comma-separated URLs) of one of the protocols. */
  optionalUrl(name: string, protocols: string[]): string | undefined;
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T;
  /** true/false, 1/0, yes/no (any case); anything else is a problem. */
  flag(name: string, fallback: boolean): boolean;
  /** Unset → undefined; set → must be a JSON object (its shape is the consumer's to check). */
  optionalJsonObject(name: string): Record<string, unknown> | undefined;
  /** Optional string that must match `pattern` (described by `rule` in the message). */
  matching(name: string, pattern: RegExp, rule: string): string | undefined;
  /** Throws one ConfigError listing every problem found. */
  done(): void;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigReader {
  const problems: string[] = [];
  const raw = (name: string) => env[name]?.trim() || undefined;
  const checkInt = (name: string, value: string, range: { min?: number; max?: number }): number | undefined => {
    const n = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
    if (Number.isSafeInteger(n) && (range.min === undefined || n >= range.min) && (range.max === undefined || n <= range.max)) return n;
    const bounds =
      range.min !== undefined && range.max !== undefined ? ` from ${range.min} to ${range.max}`
      : range.min !== undefined ? ` of at least ${range.min}`
      : range.max !== undefined ? ` of at most ${range.max}`
      : '';
    problems.push(`${name} must be an integer${bounds} (got "${value}")`);
    return undefined;
  };
  const checkUrl = (name: string, value: string, protocols: string[]) => {
    for (const part of value.split(',')) {
      try {
        const parsed = new URL(part.trim());
        if (!protocols.includes(parsed.protocol.replace(/:$/, '')) || !parsed.hostname) throw new Error('protocol');
      } catch {
        problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${value}")`);
        return;
      }
    }
  };
  const reader: ConfigReader = {
    string(name, fallback) {
      const value = raw(name) ?? fallback;
      if (value === undefined) problems.push(`${name} is required`);
      return value ?? '';
    },
    optionalString(name) {
      return raw(name);
    },
    int(name, fallback, range = {}) {
      const value = raw(name);
      return value === undefined ? fallback : checkInt(name, value, range) ?? fallback;
    },
    optionalInt(name, range = {}) {
      const value = raw(name);
      return value === undefined ? undefined : checkInt(name, value, range);
    },
    url(name, protocols, fallback) {
      const value = raw(name) ?? fallback;
      if (!value) {
        problems.push(`${name} is required (${protocols.join(' or ')} URL)`);
        return '';
      }
      checkUrl(name, value, protocols);
      return value;
    },
    optionalUrl(name, protocols) {
      const value = raw(name);
      if (value !== undefined) checkUrl(name, value, protocols);
      return value;
    },
    oneOf(name, values, fallback) {
      const value = raw(name);
      if (value === undefined) return fallback;
      const found = values.find((v) => v === value.toLowerCase());
      if (found === undefined) problems.push(`${name} must be one of ${values.join(', ')} (got "${value}")`);
      return found ?? fallback;
    },
    flag(name, fallback) {
      const value = raw(name)?.toLowerCase();
      if (value === undefined) return fallback;
      if (['true', '1', 'yes'].includes(value)) return true;
      if (['false', '0', 'no'].includes(value)) return false;
      problems.push(`${name} must be true or false (also 1/0, yes/no) (got "${env[name]?.trim()}")`);
      return fallback;
    },
    optionalJsonObject(name) {
      const value = raw(name);
      if (value === undefined) return undefined;
      try {
        const parsed: unknown = JSON.parse(value);
        if (isPlainObject(parsed)) return parsed;
      } catch {
        // reported below
      }
      problems.push(`${name} must be a JSON object (got "${value}")`);
      return undefined;
    },
    matching(name, pattern, rule) {
      const value = raw(name);
      if (value !== undefined && !pattern.test(value)) problems.push(`${name} ${rule} (got "${value}")`);
      return value;
    },
    done() {
      if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    },
  };
  return reader;
}

/** pino's levels, plus `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `auto`: human-readable lines on a terminal, JSON otherwise (logging/logging.ts, chooseLogFormat). */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];

const POSTGRES_PROTOCOLS = ['postgres', 'postgresql'];
const NATS_PROTOCOLS = ['nats', 'tls'];

/**
 * The rule for every environment variable of the deployment, in one place: the app
 * entry points (`apps/<app>/src/main.ts`) and `npm start` (both modes) read their
 * variables through these, so a value one mode accepts is never refused — or
 * silently ignored — by the other. Tunables read as `undefined` when unset, so the
 * app's own default applies.
 */
export const environment = {
  port: (c: ConfigReader) => c.int('PORT', 3000, { min: 0, max: 65535 }),
  host: (c: ConfigReader, fallback: string) => c.string('HOST', fallback),
  databaseUrl: (c: ConfigReader) => c.url('DATABASE_URL', POSTGRES_PROTOCOLS),
  /**
   * The app entry points: the owner of the app's schema, used only to migrate it at start; then the
   * app runs as DATABASE_URL's role (deploy/postgres/roles.sql). Unset → DATABASE_URL migrates too.
   */
  databaseMigrationUrl: (c: ConfigReader) => c.optionalUrl('DATABASE_MIGRATION_URL', POSTGRES_PROTOCOLS),
  /**
   * A streaming replica of DATABASE_URL's database: list, detail, transcript and stats reads go there while it
   * is within DATABASE_READ_MAX_LAG_MS of the primary and has replayed the reader's account's own writes
   * (database/read-router.ts). Unset → every read on the primary.
   */
  databaseReadUrl: (c: ConfigReader) => c.optionalUrl('DATABASE_READ_URL', POSTGRES_PROTOCOLS),
  databaseReadMaxLagMs: (c: ConfigReader) => c.optionalInt('DATABASE_READ_MAX_LAG_MS', { min: 0, max: 3_600_000 }),
  /** `npm start`: unset → embedded PostgreSQL. */
  optionalDatabaseUrl: (c: ConfigReader) => c.optionalUrl('DATABASE_URL', POSTGRES_PROTOCOLS),
  /**
   * `nats://user:password@host:4222` authenticates as that user (password URL-encoded); the
   * credentials are passed as options and kept out of logs (bus/nats-connection.ts, redactUrl).
   * Several servers of a cluster, comma-separated (`nats://u:p@n1:4222,nats://n2:4222`): the client
   * connects to any and reconnects across them.
   */
  natsUrl: (c: ConfigReader) => c.url('NATS_URL', NATS_PROTOCOLS),
  /** `npm start`: unset → one process over the in-process transport. */
  optionalNatsUrl: (c: ConfigReader) => c.optionalUrl('NATS_URL', NATS_PROTOCOLS),
  /** Servers holding each JetStream stream and durable consumer the apps create: 1 on a single server, 3 in a three-node cluster (JetStream allows at most 5). */
  jetstreamReplicas: (c: ConfigReader) => c.int('JETSTREAM_REPLICAS', 1, { min: 1, max: 5 }),
  natsNamespace: (c: ConfigReader) => c.matching('NATS_NAMESPACE', /^[A-Za-z0-9_-]{1,64}$/, "may contain only letters, digits, '_' and '-' (at most 64)"),
  adminToken: (c: ConfigReader) => c.optionalString('ADMIN_TOKEN'),
  /** The address platforms reach the gateway at (webhook URLs); unset → the gateway's own address. */
  publicUrl: (c: ConfigReader) => c.optionalUrl('PUBLIC_URL', ['http', 'https']),
  rpcTimeoutMs: (c: ConfigReader) => c.optionalInt('RPC_TIMEOUT_MS', { min: 100, max: 120_000 }),
  /** Every app: how far V8's old space may grow past its live heap before a full collection (startup/heap-growth.ts); 0 → V8's own heuristic. */
  heapGrowthPercent: (c: ConfigReader) => c.optionalInt('HEAP_GROWTH_PERCENT', { min: 0, max: 1_000 }),
  /** Inbound webhook deliveries (raw bodies) are kept at most 30 days: a platform's own retries are over within a day or two. */
  webhookRetentionDays: (c: ConfigReader) => c.optionalInt('WEBHOOK_DELIVERY_RETENTION_DAYS', { min: 1, max: 30 }),
  /** gateway: how long the CALL_EVENTS stream keeps a call event (PostgreSQL is the system of record): 1 minute to 1 year. */
  callEventsMaxAgeMs: (c: ConfigReader) => c.optionalInt('CALL_EVENTS_MAX_AGE_MS', { min: 60_000, max: 365 * 86_400_000 }),
  callEventsBatchSize: (c: ConfigReader) => c.optionalInt('CALL_EVENTS_BATCH_SIZE', { min: 1, max: 5_000 }),
  callEventsAckWaitMs: (c: ConfigReader) => c.optionalInt('CALL_EVENTS_ACK_WAIT_MS', { min: 1_000, max: 3_600_000 }),
  /** conversations-service: the accounts whose stats come from columns in memory, and the memory those take per process (MiB). */
  statsMemoryMinRows: (c: ConfigReader) => c.optionalInt('STATS_MEMORY_MIN_ROWS', { min: 0, max: 1_000_000_000 }),
  statsMemoryBudgetMb: (c: ConfigReader) => c.optionalInt('STATS_MEMORY_BUDGET_MB', { min: 0, max: 1_048_576 }),
  /** conversations-service: how often retention is applied (recordings and conversations past their agent's days). */
  retentionSweepIntervalMs: (c: ConfigReader) => c.optionalInt('RETENTION_SWEEP_INTERVAL_MS', { min: 100, max: 86_400_000 }),
  /** conversations-service: how long a replica holds a data request it works on without progress before another may take it over. */
  dataRequestLeaseMs: (c: ConfigReader) => c.optionalInt('DATA_REQUEST_LEASE_MS', { min: 500, max: 3_600_000 }),
  /** conversations-service: refuse call events on `call_events.<type>`, which names no account (every publisher is scoped). */
  callEventsRequireAccountSubject: (c: ConfigReader) => c.flag('CALL_EVENTS_REQUIRE_ACCOUNT_SUBJECT', false),
  logLevel: (c: ConfigReader) => c.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  logFormat: (c: ConfigReader) => c.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
  /** Gateway rate limits: per API key (an account gets RATE_LIMIT_ACCOUNT_FACTOR times that), and failed authentications per address. */
  rateLimits: (c: ConfigReader) => {
    const rate = (name: string) => c.optionalInt(name, { min: 1, max: 1_000_000 });
    const bucket = (prefix: string) => ({ per_second: rate(`${prefix}_PER_SECOND`), burst: rate(`${prefix}_BURST`) });
    return {
      enabled: c.flag('RATE_LIMITS', true),
      reads: bucket('RATE_LIMIT_READS'),
      writes: bucket('RATE_LIMIT_WRITES'),
      call_events: bucket('RATE_LIMIT_CALL_EVENTS'),
      accountFactor: c.optionalInt('RATE_LIMIT_ACCOUNT_FACTOR', { min: 1, max: 1000 }),
      failedAuth: bucket('RATE_LIMIT_FAILED_AUTH'),
      plans: c.optionalJsonObject('RATE_LIMIT_PLANS'),
    };
  },
  /** Gateway live streams (GET /v1/conversations/stream): heartbeat period and how many may be open at once. */
  conversationStreams: (c: ConfigReader) => ({
    heartbeatMs: c.optionalInt('CONVERSATION_STREAM_HEARTBEAT_MS', { min: 1_000, max: 300_000 }),
    perKey: c.optionalInt('CONVERSATION_STREAMS_PER_KEY', { min: 1, max: 1_000 }),
    perAccount: c.optionalInt('CONVERSATION_STREAMS_PER_ACCOUNT', { min: 1, max: 100_000 }),
  }),
  seedDemo: (c: ConfigReader) => c.flag('SEED_DEMO', true),
  dataDir: (c: ConfigReader) => c.string('DATA_DIR', '.data'),
  embeddedPgPort: (c: ConfigReader) => c.int('EMBEDDED_PG_PORT', 54329, { min: 1, max: 65535 }),
};

/** A connection URL fit for a log line or an error message: user and password removed. */
export function redactUrl(url: string): string {
  return url
    .split(',')
    .map((part) => {
      try {
        const parsed = new URL(part.trim());
        parsed.username = '';
        parsed.password = '';
        return parsed.toString().replace(/\/$/, '');
      } catch {
        return part.replace(/\/\/[^@/]*@/, '//');
      }
    })
    .join(',');
}
