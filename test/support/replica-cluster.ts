/**
 * A PostgreSQL 15 primary and a streaming replica of it, both on free loopback ports, for tests of reads
 * served by a replica. The primary is a small cluster of its own (initdb: trust and replication in its
 * pg_hba, wal_level=replica): the shared test server's pg_hba does not allow replication. The replica is
 * `pg_basebackup -R` of it (standby.signal and primary_conninfo written), started on another port.
 *
 * initdb and postgres refuse to run as root, so as root they run as the `postgres` OS user in a temporary
 * directory it owns. Durability is off (fsync, full_page_writes) and buffers are small: throwaway data.
 * Everything is stopped and removed by `close()`, and by an exit hook if the test process dies first.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { shortLivedClient } from './database.js';

const run = promisify(execFile);

/**
 * The PostgreSQL binaries: POSTGRES_BIN_DIR, else where Debian and Ubuntu put version 15 (the version the
 * deployment runs), else the newest version installed there (14 or later: pg_get_wal_replay_pause_state).
 */
export function postgresBinDir(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const preferred = '/usr/lib/postgresql/15/bin';
  if (existsSync(preferred)) return preferred;
  const installed = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v) && Number(v) >= 14).sort((a, b) => Number(b) - Number(a))
    : [];
  return installed.length ? join('/usr/lib/postgresql', installed[0], 'bin') : preferred;
}

/** Why a replica cluster cannot be made on this machine, or undefined when it can. */
export function replicaClusterUnavailable(): string | undefined {
  for (const tool of ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres']) {
    if (!existsSync(join(postgresBinDir(), tool))) return `PostgreSQL binaries not found (${join(postgresBinDir(), tool)}); set POSTGRES_BIN_DIR`;
  }
  return undefined;
}

export interface ReplicaCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` of the primary. */
  primaryUrl: string;
  replicaUrl: string;
  primaryPort: number;
  replicaPort: number;
  /** A query on a short-lived connection to the primary or the replica. */
  query<R extends Record<string, any> = any>(on: 'primary' | 'replica', sql: string, params?: unknown[]): Promise<R[]>;
  /** Stops the replica's server (fast shutdown); the primary goes on. */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Holds WAL replay on the replica (pg_wal_replay_pause): it stays connected and answers, with the data of that moment. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when it was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const asRoot = userInfo().uid === 0;

/** A command of the PostgreSQL binaries, as the `postgres` OS user when we are root. */
function command(tool: string, args: string[]): [string, string[]] {
  const path = join(postgresBinDir(), tool);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

async function pgTool(tool: string, args: string[]): Promise<string> {
  const [file, argv] = command(tool, args);
  try {
    const { stdout } = await run(file, argv, { timeout: 60_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * An initdb'd data directory kept across test runs (initdb takes seconds on a busy machine; a copy takes a
 * fraction): made once in a temporary directory and renamed into place, so concurrent first runs do not
 * see a half-made one. Never started itself.
 */
async function initializedTemplate(): Promise<string> {
  const version = (await pgTool('postgres', ['--version'])).trim().replace(/[^0-9.]/g, '');
  const template = join(tmpdir(), `voice-pg-template-${version}-${asRoot ? 'postgres' : userInfo().username}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const making = mkdtempSync(`${template}.making-`);
  if (asRoot) execFileSync('chown', ['postgres:postgres', making]);
  await pgTool('initdb', ['-D', join(making, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  try {
    renameSync(join(making, 'data'), template);
  } catch (err) {
    // Another run made it first.
    if (!existsSync(join(template, 'PG_VERSION'))) throw err;
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

async function copyTemplate(template: string, into: string): Promise<void> {
  await run('cp', ['-a', template, into]);
}

const TEST_SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  'wal_level = replica',
  'max_wal_senders = 4',
  'hot_standby = on',
  'hot_standby_feedback = on',
  // A replica's queries are not cancelled for a while by replay conflicts (VACUUM of rows they still read).
  'max_standby_streaming_delay = 30s',
  'fsync = off',
  'full_page_writes = off',
  'synchronous_commit = off',
  'shared_buffers = 16MB',
  'max_connections = 200',
  'wal_receiver_status_interval = 1s',
  "log_min_messages = warning",
];

/**
 * initdb a primary, load nothing, take a base backup as the replica and start both. `database` is created on
 * the primary (and so exists on the replica once replayed).
 */
export async function startReplicaCluster(database = 'voice'): Promise<ReplicaCluster> {
  const unavailable = replicaClusterUnavailable();
  if (unavailable) throw new Error(unavailable);
  const root = mkdtempSync(join(tmpdir(), 'voice-replica-'));
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  if (asRoot) execFileSync('chown', ['postgres:postgres', root]);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  // If the test process exits without close() (a failed beforeAll, a timeout), the servers still go.
  const onExit = () => {
    for (const dir of started) {
      const [file, argv] = command('pg_ctl', ['-D', dir, '-m', 'immediate', 'stop']);
      try {
        execFileSync(file, argv, { stdio: 'ignore', timeout: 10_000 });
      } catch {
        // already stopped
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const startServer = async (dir: string, port: number) => {
    await pgTool('pg_ctl', ['-D', dir, '-o', `-p ${port} -k ${root}`, '-l', join(root, `${port}.log`), '-w', '-t', '60', 'start']);
    if (!started.includes(dir)) started.push(dir);
  };
  const stopServer = async (dir: string, mode: 'fast' | 'immediate') => {
    await pgTool('pg_ctl', ['-D', dir, '-m', mode, '-w', 'stop']);
  };

  try {
    await copyTemplate(await initializedTemplate(), primaryDir);
    appendFileSync(join(primaryDir, 'postgresql.conf'), `\n${TEST_SETTINGS.join('\n')}\n`);
    writeFileSync(
      join(primaryDir, 'pg_hba.conf'),
      ['local all all trust', 'host all all 127.0.0.1/32 trust', 'local replication all trust', 'host replication all 127.0.0.1/32 trust', ''].join('\n'),
    );
    await startServer(primaryDir, primaryPort);
    const admin = shortLivedClient(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`);
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`).finally(() => admin.end());

    await pgTool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--no-sync', '-c', 'fast']);
    await startServer(replicaDir, replicaPort);
  } catch (err) {
    onExit();
    process.removeListener('exit', onExit);
    throw err;
  }

  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <R extends Record<string, any>>(on: 'primary' | 'replica', sql: string, params: unknown[] = []): Promise<R[]> => {
    const client = shortLivedClient(url(on === 'primary' ? primaryPort : replicaPort));
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as R[];
    } finally {
      await client.end();
    }
  };
  let replicaRunning = true;
  const cluster: ReplicaCluster = {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    primaryPort,
    replicaPort,
    query,
    async stopReplica() {
      await stopServer(replicaDir, 'fast');
      replicaRunning = false;
    },
    async startReplica() {
      await startServer(replicaDir, replicaPort);
      replicaRunning = true;
    },
    async pauseReplay() {
      await query('replica', 'SELECT pg_wal_replay_pause()');
      // A pause is a request: replay stops at its next record boundary; wait for that, so what is written next is not replayed.
      for (const deadline = Date.now() + 10_000; ; ) {
        const [{ state }] = await query<{ state: string }>('replica', 'SELECT pg_get_wal_replay_pause_state() AS state');
        if (state === 'paused') return;
        if (Date.now() > deadline) throw new Error(`replay did not pause (state ${state})`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async resumeReplay() {
      await query('replica', 'SELECT pg_wal_replay_resume()');
    },
    async caughtUp(timeoutMs = 10_000) {
      const [{ lsn }] = await query<{ lsn: string }>('primary', 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      for (const deadline = Date.now() + timeoutMs; ; ) {
        const [{ done }] = await query<{ done: boolean }>('replica', 'SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS done', [lsn]);
        if (done) return;
        if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      process.removeListener('exit', onExit);
      if (replicaRunning) await stopServer(replicaDir, 'immediate').catch(() => undefined);
      await stopServer(primaryDir, 'immediate').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}

