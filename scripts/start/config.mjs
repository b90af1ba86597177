// The start's settings: the same rules as the app entry points (libs/service-kit's config), for every
// variable, in both modes; and the defaults a zero-setup start adds for the local machine.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { die, root } from './output.mjs';

export function readStartConfig(kit, env) {
  const c = kit.readConfig(env);
  const rules = kit.environment;
  const read = {
    port: rules.port(c),
    host: rules.host(c, '127.0.0.1'),
    databaseUrl: rules.optionalDatabaseUrl(c),
    // A streaming replica of DATABASE_URL for agents-service's and conversations-service's reads (both modes; the spawned apps read it from the environment).
    databaseReadUrl: rules.databaseReadUrl(c),
    databaseReadMaxLagMs: rules.databaseReadMaxLagMs(c),
    natsUrl: rules.optionalNatsUrl(c),
    // Read here so a bad value stops the start with the others; the spawned apps read it from the same environment.
    jetstreamReplicas: rules.jetstreamReplicas(c),
    namespace: rules.natsNamespace(c),
    adminToken: rules.adminToken(c),
    publicUrl: rules.publicUrl(c),
    rpcTimeoutMs: rules.rpcTimeoutMs(c),
    webhookRetentionDays: rules.webhookRetentionDays(c),
    callEventsMaxAgeMs: rules.callEventsMaxAgeMs(c),
    rateLimits: rules.rateLimits(c),
    conversationStreams: rules.conversationStreams(c),
    batchSize: rules.callEventsBatchSize(c),
    ackWaitMs: rules.callEventsAckWaitMs(c),
    logLevel: rules.logLevel(c),
    logFormat: rules.logFormat(c),
    seedDemo: rules.seedDemo(c),
    dataDir: resolve(root, rules.dataDir(c)),
    embeddedPgPort: rules.embeddedPgPort(c),
  };
  try {
    c.done();
  } catch (err) {
    die(err.message);
  }
  // pino (in this process and the apps) wants the level in lower case; the rule accepts any case.
  if (env.LOG_LEVEL?.trim()) env.LOG_LEVEL = read.logLevel;
  return {
    ...read,
    localMode: !read.natsUrl,
    // On a terminal, the apps' info lines (a line per route mapped, per seeding request…) would bury the banner:
    // until it is printed, only warnings and errors show. An explicit LOG_LEVEL shows start-up at that level.
    quietStart: process.stdout.isTTY === true && !env.LOG_LEVEL?.trim(),
  };
}

/** A secret kept in DATA_DIR (0600), made once by `make`, so it survives restarts. */
function keptSecret(dataDir, name, make) {
  const file = join(dataDir, name);
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(file)) writeFileSync(file, `${make()}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** The file that holds the admin token `npm start` made up. */
export const adminTokenFile = (dataDir) => join(dataDir, 'admin-token');

/**
 * An operator needs an admin token for the CLI and the demo data needs one too: when
 * ADMIN_TOKEN is unset, `npm start` makes one up (kept in DATA_DIR), in both modes.
 */
export function adminTokenOf(config) {
  return config.adminToken || keptSecret(config.dataDir, 'admin-token', () => `adm_${randomBytes(24).toString('hex')}`);
}

/** What a start on one machine needs that a deployment sets itself. */
export function applyLocalDefaults(dataDir, env) {
  // Integration secrets are sealed with INTEGRATIONS_KEY; when unset, `npm start` makes one (kept in
  // DATA_DIR, 0600) so stored secrets survive restarts. Losing that file loses the stored platform keys.
  if (!env.INTEGRATIONS_KEY?.trim()) env.INTEGRATIONS_KEY = keptSecret(dataDir, 'integrations-key', () => randomBytes(32).toString('base64'));
  // Zero-setup runs next to local platform simulators: platform base URLs may be internal addresses unless said otherwise.
  if (!env.ALLOW_PRIVATE_PLATFORM_URLS?.trim()) env.ALLOW_PRIVATE_PLATFORM_URLS = 'true';
  // Likewise webhook endpoints: a receiver on this machine (loopback, http) may get the outbound events.
  if (!env.ALLOW_PRIVATE_WEBHOOK_URLS?.trim()) env.ALLOW_PRIVATE_WEBHOOK_URLS = 'true';
}
