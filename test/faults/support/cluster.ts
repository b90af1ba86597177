/**
 * The distributed deployment as real processes, for fault injection: the three built apps
 * (apps/*\/dist/main.js, spawned with startBuiltProcess) on a fresh database, over a nats-server of the
 * suite's own (own port, own -sd directory), so restarting or killing it disturbs nobody else on the
 * machine. Processes are named ('gateway', 'agents', 'agents-2', …) so a scenario can kill one and
 * restart it with the same environment (the gateway on the same port, so clients keep their URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, type ApiClient } from '../../support/http.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { startTestPlatforms, configureIntegrations, type TestPlatforms } from '../../support/platforms.js';
import { startBuiltProcess } from '../../support/processes.js';
import { randomNamespace } from '../../support/nats.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
export type Role = 'gateway' | 'agents' | 'conversations';
const MAINS: Record<Role, string> = {
  gateway: join(root, 'apps/api-gateway/dist/main.js'),
  agents: join(root, 'apps/agents-service/dist/main.js'),
  conversations: join(root, 'apps/conversations-service/dist/main.js'),
};
const READY: Record<Role, string> = { gateway: 'api-gateway ready', agents: 'agents-service ready', conversations: 'conversations-service ready' };
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export async function portOpen(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), r(true)));
    s.once('error', () => r(false));
  });
}

export async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((r) => child.once('exit', r));
}

/**
 * A nats-server with JetStream of this suite's own. The store directory survives restarts (it is the
 * server's disk), so streams and durable consumers come back as after a real restart.
 */
export class OwnNats {
  private child?: ChildProcess;
  readonly storeDir = mkdtempSync(join(tmpdir(), 'fault-nats-'));
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnNats> {
    const nats = new OwnNats(await freePort());
    await nats.boot();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  private async boot(): Promise<void> {
    this.child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: 'ignore' });
    for (const deadline = Date.now() + 15_000; !(await portOpen(this.port)); await sleep(50)) {
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server on ${this.port} did not start`);
    }
  }

  /** Stop the server (SIGTERM: a graceful restart, as an operator's; SIGKILL: a crash) and start it again on the same port and store. */
  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM', downMs = 1_000): Promise<void> {
    await this.stop(signal);
    await sleep(downMs);
    await this.boot();
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    if (!this.child) return;
    this.child.kill(signal);
    await exited(this.child);
    this.child = undefined;
  }

  async close(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

/** What the deployment's apps connect to: one server (OwnNats) or a cluster's servers (NATS_URL). */
export interface NatsDeployment {
  readonly url: string;
  close(): Promise<void>;
}

export interface FaultAccount {
  id: string;
  api: ApiClient;
  apiKey: string;
  agentIds: string[];
}

/** One deployment: database, NATS, simulators, and the named app processes. */
export class FaultCluster<Nats extends NatsDeployment = OwnNats> {
  readonly processes = new Map<string, { role: Role; child: ChildProcess }>();
  private readonly logs = new Map<string, string[]>();
  readonly namespace = randomNamespace();
  readonly adminToken = `admin_${randomBytes(12).toString('hex')}`;
  private readonly integrationsKey = randomBytes(32).toString('base64');
  private accounts = 0;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: Nats,
    readonly platforms: TestPlatforms,
    readonly gatewayPort: number,
    private readonly extraEnv: Record<string, string>,
  ) {}

  /** Database, NATS and simulators; no app process yet (start them with `start`). */
  static async create(label: string): Promise<FaultCluster>;
  /** Over NATS of the caller's (e.g. a cluster), with variables every app gets (e.g. JETSTREAM_REPLICAS). */
  static async create<N extends NatsDeployment>(label: string, nats: N, env?: Record<string, string>): Promise<FaultCluster<N>>;
  static async create(label: string, nats?: NatsDeployment, env: Record<string, string> = {}): Promise<FaultCluster<NatsDeployment>> {
    const db = await createTestDatabase(label);
    const platforms = await startTestPlatforms();
    return new FaultCluster(db, nats ?? (await OwnNats.start()), platforms, await freePort(), env);
  }

  /** The usual deployment: agents-service and conversations-service (their migrations run first), then the gateway. */
  static async standard(label: string): Promise<FaultCluster> {
    const cluster = await FaultCluster.create(label);
    await cluster.start('agents');
    await cluster.start('conversations');
    await cluster.start('gateway');
    return cluster;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.gatewayPort}`;
  }

  private env(role: Role): Record<string, string> {
    const common = { DATABASE_URL: this.db.url, NATS_URL: this.nats.url, NATS_NAMESPACE: this.namespace, ...this.extraEnv };
    switch (role) {
      case 'gateway':
        // RPC bound of 2 s: a dead service shows as 503 soon, so clients retry rather than hang.
        return { ...common, PORT: String(this.gatewayPort), HOST: '127.0.0.1', ADMIN_TOKEN: this.adminToken, RPC_TIMEOUT_MS: '2000' };
      case 'agents':
        return { ...common, INTEGRATIONS_KEY: this.integrationsKey, ALLOW_PRIVATE_PLATFORM_URLS: 'true', PLATFORM_SYNC_POLL_MS: '200' };
      case 'conversations':
        return common;
    }
  }

  /** Start (or restart) the process `name` of `role` (name defaults to the role) and wait for its ready line. */
  async start(role: Role, name: string = role): Promise<void> {
    const existing = this.processes.get(name);
    if (existing && existing.child.exitCode === null && existing.child.signalCode === null) throw new Error(`${name} is already running`);
    const child = await startBuiltProcess(MAINS[role], this.env(role), READY[role], 60_000);
    this.processes.set(name, { role, child });
    // The process's log after its ready line (JSON lines), kept short: shown when a scenario fails.
    const log = (this.logs.get(name) ?? []).concat(`--- ${name} started (pid ${child.pid})`);
    this.logs.set(name, log);
    const keep = (d: Buffer) => {
      log.push(...d.toString().split('\n').filter(Boolean));
      if (log.length > 400) log.splice(0, log.length - 400);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => log.push(`--- ${name} exited (code ${code}, signal ${signal})`));
  }

  /** The last lines each process logged, warnings and errors only (info lines are per-request noise). */
  logTail(lines = 30): string {
    return [...this.logs]
      .map(([name, log]) => {
        const picked = log.filter((l) => l.startsWith('---') || /"level":(40|50|60)/.test(l) || !l.startsWith('{')).slice(-lines);
        return `== ${name}\n${picked.join('\n')}`;
      })
      .join('\n');
  }

  pidOf(name: string): number {
    const p = this.processes.get(name);
    if (!p?.child.pid) throw new Error(`no process ${name}`);
    return p.child.pid;
  }

  /** kill -9, and wait until the kernel reaped it (its sockets are closed by then). */
  async kill9(name: string): Promise<void> {
    const p = this.processes.get(name);
    if (!p) throw new Error(`no process ${name}`);
    p.child.kill('SIGKILL');
    await exited(p.child);
  }

  async restart(name: string): Promise<void> {
    const p = this.processes.get(name);
    if (!p) throw new Error(`no process ${name}`);
    await this.start(p.role, name);
  }

  /** Terminate every other backend connected to the test database, as a DBA or a failover would. Returns how many. */
  async terminateDatabaseConnections(): Promise<number> {
    const { rows } = await this.db.query(
      'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.db.name],
    );
    return rows[0].n;
  }

  /**
   * A new account (admin route), integrated with the platform_a simulator, with `agents` agents created through
   * the API; resolves once conversations-service has learnt them from AGENT_EVENTS (else its call events would be parked).
   */
  async createAccount(agents = 2): Promise<FaultAccount> {
    this.accounts += 1;
    const admin = apiClient(this.baseUrl, this.adminToken);
    const res = await admin.post('/v1/admin/accounts', { name: `Fault ${this.accounts}`, plan: 'starter', agent_limit: 100, voice_platforms: ['platform_a'] });
    if (res.status !== 201) throw new Error(`account: ${res.status} ${res.text}`);
    const apiKey: string = res.body.data.api_key;
    const api = apiClient(this.baseUrl, apiKey);
    await configureIntegrations(api, this.platforms, ['platform_a']);
    const agentIds: string[] = [];
    for (let i = 0; i < agents; i += 1) {
      const created = await api.post('/v1/agents', { name: `Fault agent ${this.accounts}.${i}`, voice_platform: 'platform_a' });
      if (created.status !== 201) throw new Error(`agent: ${created.status} ${created.text}`);
      agentIds.push(created.body.data.id);
    }
    for (const deadline = Date.now() + 30_000; ; await sleep(100)) {
      const { rows } = await this.db.query('SELECT count(*)::int AS n FROM conversations.agents WHERE agent_id = ANY($1)', [agentIds]);
      if (rows[0].n === agentIds.length) break;
      if (Date.now() > deadline) throw new Error('conversations-service never learnt the agents');
    }
    return { id: res.body.data.id, api, apiKey, agentIds };
  }

  /**
   * Which named process holds the agents relay: the session advisory lock of the relay (as outbox-relay.ts takes
   * it) → the holding backend's client port (pg_stat_activity) → the local socket with that port (/proc/net/tcp)
   * → the process owning that socket (/proc/<pid>/fd). Undefined while nobody holds it.
   */
  async relayHolder(lockKey = 'relay:agents:agent-events-to-jetstream'): Promise<string | undefined> {
    const { rows } = await this.db.query(
      `WITH k AS (SELECT hashtext($1)::bigint AS v)
       SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid, k
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND a.datname = $2
          AND l.objid = (k.v & 4294967295)::oid AND l.classid = ((k.v >> 32) & 4294967295)::oid`,
      [lockKey, this.db.name],
    );
    if (rows.length === 0) return undefined;
    const inode = socketInode(rows[0].client_port);
    if (!inode) return undefined;
    for (const [name, p] of this.processes) {
      if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.pid) continue;
      if (ownsSocket(p.child.pid, inode)) return name;
    }
    return undefined;
  }

  async close(): Promise<void> {
    for (const p of this.processes.values()) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const p of this.processes.values()) await exited(p.child);
    await this.platforms.stop().catch(() => undefined);
    await this.nats.close().catch(() => undefined);
    await this.db.drop().catch(() => undefined);
  }
}

/** The inode of the TCP socket whose local port is `port` (IPv4 or IPv6 table). */
function socketInode(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && cols[1].endsWith(`:${hex}`)) return cols[9];
    }
  }
  return undefined;
}

function ownsSocket(pid: number, inode: string): boolean {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return true;
      } catch {
        // fd closed meanwhile
      }
    }
  } catch {
    // process gone
  }
  return false;
}
