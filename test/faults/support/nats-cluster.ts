/**
 * Three nats-server processes clustered on loopback ports, JetStream on each (own store directory, own
 * server_name), for the clustered-JetStream fault scenario. Each node can be killed and restarted on its
 * ports and store, as a crashed and rebooted machine would be; the stream leader is found from the
 * JetStream API (`$JS.API.STREAM.INFO.<stream>` → cluster.leader, a server_name).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { exited, freePort, portOpen, sleep } from './cluster.js';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface StreamClusterInfo {
  leader?: string;
  replicas: Array<{ name: string; current: boolean; offline?: boolean; lag?: number }>;
}

class ClusterNode {
  private child?: ChildProcess;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly configFile: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async boot(): Promise<void> {
    this.child = spawn(NATS_SERVER, ['-c', this.configFile], { stdio: 'ignore' });
    for (const deadline = Date.now() + 15_000; !(await portOpen(this.port)); await sleep(50)) {
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server ${this.name} on ${this.port} did not start`);
    }
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (!this.child) return;
    this.child.kill(signal);
    await exited(this.child);
    this.child = undefined;
  }
}

export class NatsCluster {
  private constructor(
    readonly nodes: ClusterNode[],
    private readonly dir: string,
  ) {}

  /** `size` nodes, each with routes to all (itself included, as a static deployment writes them). */
  static async start(size = 3): Promise<NatsCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'fault-nats-cluster-'));
    const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
    const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`);
    const nodes = ports.map((p, i) => {
      const name = `n${i + 1}`;
      const configFile = join(dir, `${name}.conf`);
      writeFileSync(
        configFile,
        [
          `server_name: ${name}`,
          `listen: 127.0.0.1:${p.client}`,
          `jetstream { store_dir: "${join(dir, `${name}-store`)}" }`,
          `cluster { name: fault, listen: 127.0.0.1:${p.route}, routes: [${routes.join(', ')}] }`,
        ].join('\n'),
      );
      return new ClusterNode(name, p.client, configFile);
    });
    const cluster = new NatsCluster(nodes, dir);
    await Promise.all(nodes.map((n) => n.boot()));
    await cluster.waitForMetaLeader();
    return cluster;
  }

  /** Every node, comma-separated, as NATS_URL takes them. */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  node(name: string): ClusterNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  private async withConnection<T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> {
    const servers = this.nodes.filter((n) => n.running).map((n) => n.url);
    const nc = await connect({ servers, timeout: 2_000, reconnect: false, name: 'fault-cluster-probe' });
    try {
      return await work(nc);
    } finally {
      await nc.close().catch(() => undefined);
    }
  }

  /** JetStream answers account info only once the cluster elected its meta leader. */
  private async waitForMetaLeader(timeoutMs = 30_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
      const ready = await this.withConnection(async (nc) => {
        const reply = (await nc.request('$JS.API.INFO', undefined, { timeout: 1_000 })).json<{ error?: unknown }>();
        return !reply.error;
      }).catch(() => false);
      if (ready) return;
      if (Date.now() > deadline) throw new Error('the NATS cluster elected no JetStream meta leader');
    }
  }

  /** The stream's cluster view (leader and replicas), or undefined while no leader answers. */
  async streamCluster(stream: string): Promise<StreamClusterInfo | undefined> {
    return this.withConnection(async (nc) => {
      const reply = (await nc.request(`$JS.API.STREAM.INFO.${stream}`, undefined, { timeout: 2_000 })).json<{
        error?: unknown;
        cluster?: { leader?: string; replicas?: StreamClusterInfo['replicas'] };
      }>();
      if (reply.error || !reply.cluster?.leader) return undefined;
      return { leader: reply.cluster.leader, replicas: reply.cluster.replicas ?? [] };
    }).catch(() => undefined);
  }

  /** A durable consumer's cluster view, or undefined while no leader answers. */
  async consumerCluster(stream: string, durable: string): Promise<StreamClusterInfo | undefined> {
    return this.withConnection(async (nc) => {
      const reply = (await nc.request(`$JS.API.CONSUMER.INFO.${stream}.${durable}`, undefined, { timeout: 2_000 })).json<{
        error?: unknown;
        cluster?: { leader?: string; replicas?: StreamClusterInfo['replicas'] };
      }>();
      if (reply.error || !reply.cluster?.leader) return undefined;
      return { leader: reply.cluster.leader, replicas: reply.cluster.replicas ?? [] };
    }).catch(() => undefined);
  }

  /** The stream's leader, once it has one (waits through an election). */
  async leaderOf(stream: string, timeoutMs = 30_000): Promise<string> {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
      const info = await this.streamCluster(stream);
      if (info?.leader) return info.leader;
      if (Date.now() > deadline) throw new Error(`stream ${stream} has no leader`);
    }
  }

  /** Until the stream has a leader and every other replica is online and caught up. */
  async waitForReplicasCurrent(stream: string, timeoutMs = 60_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
      const info = await this.streamCluster(stream);
      if (info?.leader && info.replicas.length === this.nodes.length - 1 && info.replicas.every((r) => r.current && !r.offline)) return;
      if (Date.now() > deadline) throw new Error(`stream ${stream}: replicas not current (${JSON.stringify(info)})`);
    }
  }

  async kill(name: string): Promise<void> {
    await this.node(name).stop('SIGKILL');
  }

  async boot(name: string): Promise<void> {
    await this.node(name).boot();
  }

  async close(): Promise<void> {
    for (const node of this.nodes) await node.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
