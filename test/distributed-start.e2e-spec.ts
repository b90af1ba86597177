import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';
import { alive } from './support/processes.js';
import { eventually } from './support/streams.js';

/** The processes an operator runs: each app's `main.js`, and `npm start` in the distributed mode (NATS_URL set). */
const root = resolve(fileURLToPath(import.meta.url), '../..');

/** agents-service requires INTEGRATIONS_KEY (32 bytes, base64) in the distributed mode. */
const INTEGRATIONS_KEY = Buffer.alloc(32, 7).toString('base64');

function run(args: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info', INTEGRATIONS_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const closed = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  return { child, closed, out: () => stdout, err: () => stderr };
}

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}


/** Every process started by `pid`, however deep (from /proc). */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length; ) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** JSON log lines at error level or above. */
const errorLines = (out: string) => out.split('\n').filter((line) => /"level":"(error|fatal)"/.test(line));
const noStackTrace = /\n\s+at /;

describe('app entry points', () => {
  it.each(['api-gateway', 'agents-service', 'conversations-service'])('%s refuses bad configuration with one clear message and exit 1', async (app) => {
    const p = run([join(root, 'apps', app, 'dist', 'main.js')], { DATABASE_URL: 'mysql://nope', NATS_URL: undefined });
    expect(await p.closed).toBe(1);
    expect(p.err()).toContain('Invalid configuration:');
    expect(p.err()).toContain('DATABASE_URL must be a postgres or postgresql URL');
    expect(p.err()).toContain('NATS_URL is required');
    expect(p.err()).not.toMatch(noStackTrace);
  }, 30_000);

  it.each(['api-gateway', 'agents-service', 'conversations-service'])('%s refuses a bad LOG_LEVEL, LOG_FORMAT and bad tunables in the same message, without a stack trace', async (app) => {
    const p = run([join(root, 'apps', app, 'dist', 'main.js')], {
      DATABASE_URL: 'postgres://127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222', LOG_LEVEL: 'bogus', LOG_FORMAT: 'yaml', NATS_NAMESPACE: 'a.b',
      RPC_TIMEOUT_MS: 'abc', CALL_EVENTS_BATCH_SIZE: 'many',
    });
    expect(await p.closed).toBe(1);
    expect(p.err()).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "bogus")');
    expect(p.err()).toContain('LOG_FORMAT must be one of auto, json, pretty (got "yaml")');
    expect(p.err()).toContain('NATS_NAMESPACE may contain only');
    if (app === 'api-gateway') expect(p.err()).toContain('RPC_TIMEOUT_MS must be an integer');
    if (app === 'conversations-service') expect(p.err()).toContain('CALL_EVENTS_BATCH_SIZE must be an integer');
    expect(p.err()).not.toMatch(noStackTrace);
    expect(p.out()).toBe('');
  }, 30_000);

  it('agents-service refuses a missing or malformed INTEGRATIONS_KEY with one clear message, never showing the value', async () => {
    for (const [value, expected] of [[undefined, 'INTEGRATIONS_KEY is required'], ['c2hvcnQ=', 'INTEGRATIONS_KEY must be 32 random bytes in base64']] as const) {
      const p = run([join(root, 'apps', 'agents-service', 'dist', 'main.js')], {
        DATABASE_URL: 'postgres://127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222', INTEGRATIONS_KEY: value,
      });
      expect(await p.closed).toBe(1);
      expect(p.err()).toContain('Invalid configuration:');
      expect(p.err()).toContain(expected);
      if (value) expect(p.err()).not.toContain(value);
      expect(p.err()).not.toMatch(noStackTrace);
    }
  }, 30_000);

  it.each(['api-gateway', 'agents-service', 'conversations-service'])('%s names an unreachable PostgreSQL in one line, without its password', async (app) => {
    const port = await freePort(); // nothing listens there
    const p = run([join(root, 'apps', app, 'dist', 'main.js')], { DATABASE_URL: `postgres://voice:s3cret@127.0.0.1:${port}/voice`, NATS_URL: testNatsUrl(), PORT: '0' });
    expect(await p.closed).toBe(1);
    expect(p.err().trim()).toBe(`${app} cannot start: PostgreSQL at postgres://127.0.0.1:${port}/voice is unreachable (ECONNREFUSED); is it running, and is DATABASE_URL right?`);
    expect(p.out()).not.toMatch(/"level":"fatal"/);
  }, 30_000);

  it.each(['api-gateway', 'agents-service', 'conversations-service'])('%s names an unreachable NATS in one line', async (app) => {
    const db = await createTestDatabase('unreachable-nats');
    try {
      const port = await freePort();
      const p = run([join(root, 'apps', app, 'dist', 'main.js')], { DATABASE_URL: db.url, NATS_URL: `nats://127.0.0.1:${port}`, NATS_NAMESPACE: randomNamespace(), PORT: '0' });
      expect(await p.closed).toBe(1);
      expect(p.err().trim()).toBe(`${app} cannot start: NATS at nats://127.0.0.1:${port} is unreachable (ECONNREFUSED); is it running (with JetStream), and is NATS_URL right?`);
      expect(p.out()).not.toMatch(/"level":"fatal"/);
    } finally {
      await db.drop().catch(() => undefined);
    }
  }, 30_000);

  it.each([
    ['LOG_FORMAT=pretty', 'human-readable lines', 'pretty'],
    ['LOG_FORMAT=json', 'JSON lines', 'json'],
    ['LOG_FORMAT unset, stdout not a terminal', 'JSON lines', undefined],
  ])('%s: an app logs %s', async (_setting, _what, format) => {
    const db = await createTestDatabase('log-format');
    const namespace = randomNamespace();
    try {
      const p = run([join(root, 'apps', 'conversations-service', 'dist', 'main.js')], { DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, LOG_FORMAT: format });
      for (const deadline = Date.now() + 20_000; !p.out().includes('conversations-service ready') && p.child.exitCode === null && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      p.child.kill('SIGTERM');
      expect(await p.closed).toBe(0);
      const lines = p.out().replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      const isJson = (line: string) => {
        try {
          return typeof JSON.parse(line) === 'object';
        } catch {
          return false;
        }
      };
      if (format === 'pretty') {
        expect(lines.filter(isJson)).toEqual([]);
        expect(lines).toContainEqual(expect.stringMatching(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: conversations-service ready( \{.*\})?$/));
        expect(lines).toContainEqual(expect.stringMatching(/^\[[\d:.]+\] INFO: conversations-service stopping \{"signal":"SIGTERM"\}$/));
      } else {
        expect(lines.filter((line) => !isJson(line))).toEqual([]);
        expect(lines.map((line) => JSON.parse(line))).toContainEqual(expect.objectContaining({ level: 'info', service: 'conversations-service', msg: 'conversations-service ready' }));
      }
    } finally {
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop().catch(() => undefined);
    }
  }, 30_000);

  it('api-gateway reports its port in use in one line', async () => {
    const db = await createTestDatabase('gateway-port');
    const namespace = randomNamespace();
    const blocker: Server = createServer();
    const port = await new Promise<number>((ok) => blocker.listen(0, '127.0.0.1', () => ok((blocker.address() as { port: number }).port)));
    try {
      const p = run([join(root, 'apps', 'api-gateway', 'dist', 'main.js')], { DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, PORT: String(port), HOST: '127.0.0.1' });
      expect(await p.closed).toBe(1);
      expect(p.err().trim()).toBe(`api-gateway cannot start: HTTP port ${port} on 127.0.0.1 is already in use (set PORT to another port, or stop what is using it)`);
    } finally {
      blocker.close();
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await db.drop().catch(() => undefined);
    }
  }, 30_000);
});

describe('npm start, distributed mode (three processes over NATS)', () => {
  let db: TestDatabase;
  const namespace = randomNamespace();
  const adminToken = 'adm_distributed_test';
  let port: number;
  let launcher: ReturnType<typeof run>;
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-dist-'));

  beforeAll(async () => {
    db = await createTestDatabase('dist');
    port = await freePort();
    launcher = run([join(root, 'scripts', 'start.mjs')], {
      DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, ADMIN_TOKEN: adminToken,
      PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', DATA_DIR: dataDir,
      PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0', DEMO_WEBHOOK_RECEIVER_PORT: '0',
    });
    for (const deadline = Date.now() + 60_000; !launcher.out().includes('Ctrl-C') && Date.now() < deadline; ) {
      if (launcher.child.exitCode !== null) throw new Error(launcher.err());
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);
  afterAll(async () => {
    if (launcher?.child.exitCode === null) launcher.child.kill('SIGKILL');
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the whole API from three processes', async () => {
    expect(launcher.out()).toContain('distributed, over NATS');
    const base = `http://127.0.0.1:${port}`;
    expect(launcher.out()).toContain(`\n  console:   ${base}/app\n`); // no demo data (SEED_DEMO=false): no key to sign in with
    // Each app's "ready" line reaches the launcher's output through the app's own pipe, so it can follow the banner
    // (printed once /health answers) by a moment.
    await eventually(() => {
      for (const app of ['agents-service ready', 'conversations-service ready', 'notifications-service ready', 'api-gateway ready']) expect(launcher.out()).toContain(app);
    }, 10_000);
    const account = (await apiClient(base, adminToken).post('/v1/admin/accounts', { name: 'Dist', plan: 'starter', agent_limit: 2, voice_platforms: ['platform_a'] })).body.data;
    const api = apiClient(base, account.api_key);
    // The launcher runs the platform simulators beside the processes: point the account at its platform_a.
    const simulatorUrl = launcher.out().match(/platform_a (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
    expect(simulatorUrl).toBeDefined();
    const credentials = JSON.parse(readFileSync(join(dataDir, 'simulator-credentials.json'), 'utf8'));
    const integration = await api.put('/v1/integrations/platform_a', { api_key: credentials.apiKey, webhook_secret: credentials.webhookSecret, base_url: simulatorUrl });
    expect(integration.body.data).toMatchObject({ status: 'verified', webhook_url: `${base}/v1/webhooks/platform_a/${integration.body.data.webhook_url.split('/').at(-1)}` });
    // notifications-service, its own process: an endpoint on loopback gets the agent's creation.
    const received: string[] = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => (received.push(body), res.writeHead(204).end()));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = await api.post('/v1/webhook-endpoints', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`, event_types: ['agent.created'] });
    expect(endpoint.status).toBe(201);
    const agent = await api.post('/v1/agents', { name: 'Desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    expect(agent.body.data.platform_sync).toMatchObject({ state: 'synced', platform_agent_id: expect.stringMatching(/^agent_/) });
    for (const deadline = Date.now() + 10_000; received.length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    receiver.close();
    expect(received.map((body) => JSON.parse(body))).toEqual([expect.objectContaining({ type: 'agent.created', data: expect.objectContaining({ agent: expect.objectContaining({ id: agent.body.data.id }) }) })]);
    const at = '2026-11-20T10:00:00Z';
    const posted = await api.post('/v1/call-events', { id: 'd-1', type: 'call.started', conversation_id: 'dist-1', agent_id: agent.body.data.id, occurred_at: at, data: { caller_number: '+14155550101', start_time: at } });
    expect(posted.status).toBe(202);
    let listed: any;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      listed = (await api.get('/v1/conversations')).body;
      if (listed.meta.total === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(listed.data[0]).toMatchObject({ id: 'dist-1', agent_name: 'Desk', status: 'in_progress' });
  }, 30_000);

  it('stops all three processes on SIGINT', async () => {
    launcher.child.kill('SIGINT');
    expect(await launcher.closed).toBe(0);
    for (const app of ['agents-service stopping', 'conversations-service stopping', 'notifications-service stopping', 'api-gateway stopping']) expect(launcher.out()).toContain(app);
  }, 30_000);
});

describe('npm start, distributed mode on the embedded PostgreSQL (NATS_URL set, no DATABASE_URL, no ADMIN_TOKEN)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-dist-embedded-'));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as `postgres` when we are root
  const namespace = randomNamespace();
  let launcher: ReturnType<typeof run>;
  let processes: number[] = [];

  beforeAll(async () => {
    const env: Record<string, string | undefined> = {
      DATABASE_URL: undefined, ADMIN_TOKEN: undefined, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace,
      DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()), HOST: '127.0.0.1',
      PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0', DEMO_WEBHOOK_RECEIVER_PORT: '0',
      // The seed's counts below, without the demo traffic's calls (test/demo-traffic.e2e-spec.ts watches those).
      DEMO_TRAFFIC: 'false',
    };
    launcher = run([join(root, 'scripts', 'start.mjs')], env);
    for (const deadline = Date.now() + 90_000; !launcher.out().includes('Ctrl-C') && Date.now() < deadline; ) {
      if (launcher.child.exitCode !== null) throw new Error(launcher.err());
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);
  afterAll(async () => {
    if (launcher?.child.exitCode === null) launcher.child.kill('SIGKILL');
    for (const pid of processes) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs three processes on the embedded database and seeds the demo data as the one-process mode does', async () => {
    expect(launcher.out()).toContain('distributed, over NATS');
    expect(launcher.out()).toContain('embedded PostgreSQL');
    // No ADMIN_TOKEN: one is generated into DATA_DIR, so the demo account can be created.
    expect(existsSync(join(dataDir, 'admin-token'))).toBe(true);
    const key = launcher.out().match(/demo key:\s+(vk_\w+)/)?.[1];
    expect(key).toBeDefined();
    const url = launcher.out().match(/is up in [\d.]+ s — (http:\/\/\S+)/)![1];
    // The console link signs in with the demo key.
    expect(launcher.out()).toContain(`\n  console:   ${url}/app#api_key=${key}\n`);
    const list: any = await (await fetch(`${url}/v1/conversations?per_page=1`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(list.meta.total).toBe(212); // 200 of history, 12 through the simulators' signed webhooks
    // The demo agents live on the bundled platform simulators.
    const agents: any = await (await fetch(`${url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(agents.data.map((a: any) => [a.voice_platform, a.platform_sync.state])).toEqual(
      expect.arrayContaining([['platform_a', 'synced'], ['platform_b', 'synced']]),
    );
    // The demo account's endpoint points at the receiver the launcher runs; notifications-service, a process of its
    // own, delivers to it and the receiver verifies the signature with the secret it read through the API.
    const receiverUrl = JSON.parse(readFileSync(join(dataDir, 'ports.json'), 'utf8')).webhook_receiver;
    const endpoints: any = await (await fetch(`${url}/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(endpoints.data).toEqual([expect.objectContaining({ url: `${receiverUrl}/webhooks`, status: 'active' })]);
    const test: any = await (await fetch(`${url}/v1/webhook-endpoints/${endpoints.data[0].id}/test`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })).json();
    expect(test.data).toMatchObject({ succeeded: true, status_code: 204 });
    processes = descendantsOf(launcher.child.pid!);
    // Three apps and PostgreSQL (the postmaster, which is a child of the launcher, and its workers).
    expect(processes.length).toBeGreaterThanOrEqual(4);
  }, 30_000);

  it('SIGINT stops the apps, then PostgreSQL, and exits 0 without an error logged or a process left', async () => {
    launcher.child.kill('SIGINT');
    expect(await launcher.closed).toBe(0);
    for (const app of ['agents-service stopping', 'conversations-service stopping', 'notifications-service stopping', 'api-gateway stopping']) expect(launcher.out()).toContain(app);
    expect(errorLines(launcher.out())).toEqual([]);
    expect(launcher.err()).not.toMatch(noStackTrace);
    expect(launcher.out() + launcher.err()).not.toMatch(/QueryRunnerAlreadyReleasedError|ECONNREFUSED|terminating connection/);
    expect(processes.filter(alive)).toEqual([]);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 30_000);
});
