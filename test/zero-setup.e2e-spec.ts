import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, launch, until, untilReady, type Launch } from './support/launcher.js';
import { alive } from './support/processes.js';

/**
 * `npm start` as a new user meets it: no DATABASE_URL, no NATS_URL. The launcher
 * starts an embedded PostgreSQL, runs the three apps in one process, seeds demo
 * data, and shuts everything down on Ctrl-C (SIGINT).
 */

/** The pid PostgreSQL wrote into its lock file, while it runs. */
function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}


const noStackTrace = /\n\s+at /;

/**
 * The demo account has exactly one webhook endpoint, pointing at the receiver npm start runs, and a delivery to it
 * succeeds: the receiver verified its signature (it answers 401 otherwise) and lists it at GET /.
 */
async function expectDemoEndpointDelivers(url: string, apiKey: string, receiverUrl: string): Promise<void> {
  const call = async (method: string, path: string) => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${apiKey}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const endpoints = await call('GET', '/v1/webhook-endpoints');
  expect(endpoints.body.data).toEqual([expect.objectContaining({ url: `${receiverUrl}/webhooks`, status: 'active', event_types: null, agent_ids: null })]);
  const test = await call('POST', `/v1/webhook-endpoints/${endpoints.body.data[0].id}/test`);
  expect(test.body.data).toMatchObject({ succeeded: true, status_code: 204 });
  const received: any = await (await fetch(`${receiverUrl}/`)).json();
  expect(received.deliveries).toContainEqual(expect.objectContaining({ webhook_id: test.body.data.event_id, type: 'webhook.test', verified: true }));
  const page = await fetch(`${receiverUrl}/`, { headers: { accept: 'text/html' } });
  expect(page.headers.get('content-type')).toContain('text/html');
  expect(await page.text()).toContain(test.body.data.event_id);
}

describe('zero-setup npm start (embedded PostgreSQL, one process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-zero-setup-'));
  // mkdtemp makes the folder private; the embedded PostgreSQL (run as `postgres` when we are root) must enter it.
  chmodSync(dataDir, 0o755);
  let pgPort: number;
  let running: Launch | undefined;

  beforeAll(async () => {
    pgPort = await freePort();
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGINT');
      await running.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  // A short reconciliation interval: npm start must pass it on to agents-service (checked below). Without the demo
  // traffic, so the counts below are the seed's (test/demo-traffic.e2e-spec.ts watches the traffic).
  // DEMO_WEBHOOK_RECEIVER_PORT=0: each start's receiver listens elsewhere, so the later start must move the demo endpoint.
  const env = () => ({
    DATA_DIR: dataDir, PORT: '0', EMBEDDED_PG_PORT: String(pgPort), PLATFORM_RECONCILE_INTERVAL_MS: '1000', DEMO_TRAFFIC: 'false', DEMO_WEBHOOK_RECEIVER_PORT: '0',
  });

  it('first start: builds, starts the embedded database, seeds demo data and serves the API', async () => {
    running = launch(env());
    const { url, apiKey } = await untilReady(running);
    expect(running.stderr()).toContain('initialising an embedded PostgreSQL');
    // Quoted: the URL has a `?`, which zsh would otherwise try to glob.
    expect(running.stdout()).toContain(`curl -s "${url}/v1/conversations?per_page=3" -H "Authorization: Bearer ${apiKey}"`);

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    const agents: any = await (await fetch(`${url}/v1/agents`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    expect(agents.data.map((a: { name: string }) => a.name).sort()).toEqual(['Billing Support', 'Front Desk']);
    // The bundled platform simulators run beside the service and the demo agents live on them.
    expect(running.stdout()).toMatch(/platforms: simulated — platform_a http:\/\/127\.0\.0\.1:\d+, platform_b http:\/\/127\.0\.0\.1:\d+/);
    for (const agent of agents.data) {
      expect(agent.platform_sync).toMatchObject({ state: 'synced', platform_agent_id: expect.any(String), last_error: null });
      expect(agent.phone_number).toMatch(/^\+1\d{10}$/);
    }
    const list: any = await (await fetch(`${url}/v1/conversations?per_page=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    // 200 calls of history through the call-event ingest, 12 placed on the simulators and delivered as signed webhooks.
    expect(list.meta.total).toBe(212);
    const webhooks: any = await (await fetch(`${url}/v1/webhook-deliveries?outcome=accepted&per_page=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    expect(webhooks.meta.total).toBeGreaterThanOrEqual(12);
    expect(existsSync(join(dataDir, 'admin-token'))).toBe(true);
    // Where it listens, for `npm run cli` and `npm run simulate` (PORT=0 here: no default port would find it).
    const ports = JSON.parse(readFileSync(join(dataDir, 'ports.json'), 'utf8'));
    const loopback = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ports).toEqual({ pid: running.child.pid, api: url, platform_a: loopback, platform_b: loopback, webhook_receiver: loopback });
    await expectDemoEndpointDelivers(url, apiKey, ports.webhook_receiver);
    expect(running.stdout()).toContain(`webhooks:  demo receiver ${ports.webhook_receiver} ← the demo account's webhook endpoint`);
    expect(running.stdout()).toContain(`platform_a ${ports.platform_a}, platform_b ${ports.platform_b}`);
    // The history is finished calls: none stays in progress forever (the calls in progress are the demo traffic's, which end).
    const live: any = await (await fetch(`${url}/v1/conversations?status=in_progress`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    expect(live.meta.total).toBe(0);
    expect(running.stdout()).not.toContain('traffic:');
  }, 120_000);

  it('Ctrl-C shuts everything down, the embedded PostgreSQL included', async () => {
    const postgres = postmasterPid(dataDir);
    running!.child.kill('SIGINT');
    expect(await running!.exited).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(alive(postgres)).toBe(false);
    expect(existsSync(join(dataDir, 'ports.json'))).toBe(false);
    expect(running!.stderr()).not.toMatch(noStackTrace);
  }, 30_000);

  it('a later start reuses the data (no second seeding) and recovers from a stale lock', async () => {
    // What a killed PostgreSQL leaves behind: a pid file naming a process that no longer exists.
    writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), '2147483646\n');
    running = launch(env());
    const { url, apiKey } = await untilReady(running);
    expect(running.stderr()).toContain('removing a stale lock');
    expect(running.stderr()).toContain('pid 2147483646 is no longer running');
    expect(running.stderr()).not.toContain('initialising');
    expect(running.stderr()).not.toContain('creating demo data');
    expect(apiKey).toBe(JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')).apiKey);
    const list: any = await (await fetch(`${url}/v1/conversations?per_page=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    expect(list.meta.total).toBe(212);
    // The same demo endpoint, moved to where this start's receiver listens, still delivering.
    await expectDemoEndpointDelivers(url, apiKey, JSON.parse(readFileSync(join(dataDir, 'ports.json'), 'utf8')).webhook_receiver);
  }, 120_000);

  it('the simulators kept their agents across the restart, and one deleted on its platform is recreated by the reconciliation', async () => {
    const ports = JSON.parse(readFileSync(join(dataDir, 'ports.json'), 'utf8'));
    const apiKey = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')).apiKey;
    const simulatorKey = JSON.parse(readFileSync(join(dataDir, 'simulator-credentials.json'), 'utf8')).apiKey;
    const ours = (path: string) => fetch(`${ports.api}${path}`, { headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.json() as Promise<any>);
    const dashboard = (method: string, path: string) => fetch(`${ports.platform_a}${path}`, { method, headers: { authorization: `Bearer ${simulatorKey}` } });
    const since = Date.now();
    const agentId = (await ours('/v1/agents')).data.find((a: any) => a.voice_platform === 'platform_a').id;
    // The start re-applies the demo integrations, which re-syncs the agents: wait for a reconciliation after that
    // sync, so the deletion below is found by the reconciliation rather than repaired by the pending sync.
    let agent: any;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !agent; await new Promise((r) => setTimeout(r, 250))) {
      const { data } = await ours(`/v1/agents/${agentId}`);
      const sync = data.platform_sync;
      if (sync.state === 'synced' && Date.parse(sync.last_reconciled_at) > Math.max(since, Date.parse(sync.last_attempt_at))) agent = data;
    }
    expect(agent).toBeDefined();
    const platformId = agent.platform_sync.platform_agent_id;
    // A real platform does not forget our agents when we restart: neither do the simulators under npm start.
    expect((await dashboard('GET', `/v2/agents/${platformId}`)).status).toBe(200);

    expect((await dashboard('DELETE', `/v2/agents/${platformId}`)).status).toBe(204);
    let repaired: any;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !repaired; await new Promise((r) => setTimeout(r, 250))) {
      const now = await ours(`/v1/agents/${agent.id}`);
      if (now.data.platform_sync.last_drift?.repaired_at) repaired = now.data;
    }
    expect(repaired?.platform_sync).toMatchObject({ state: 'synced', last_drift: { agent_missing: true, platform: 'platform_a' } });
    expect(repaired.platform_sync.platform_agent_id).not.toBe(platformId);
    expect((await dashboard('GET', `/v2/agents/${repaired.platform_sync.platform_agent_id}`)).status).toBe(200);
  }, 60_000);

  it('a second instance on the same data directory is refused with a clear message', async () => {
    const second = launch({ ...env(), EMBEDDED_PG_PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/cannot start: another PostgreSQL \(pid \d+\) is using/);
    expect(second.stderr()).toContain(`the service is already running (npm start, pid ${running!.child.pid})`);
    expect(second.stderr()).not.toMatch(noStackTrace);
  }, 60_000);

  it('after the launcher is killed (SIGKILL), the next start stops the PostgreSQL it left behind and starts', async () => {
    const orphan = postmasterPid(dataDir);
    running!.child.kill('SIGKILL');
    await running!.exited;
    expect(alive(orphan)).toBe(true); // nobody could stop it
    running = launch(env());
    await untilReady(running);
    expect(running.stderr()).toContain(`stopping the embedded PostgreSQL (pid ${orphan}) left running`);
    expect(alive(orphan)).toBe(false);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
  }, 120_000);

  it('a lock naming a live process that is not our PostgreSQL (a reused pid) is stale: the start goes on', async () => {
    const other = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `${other.pid}\n${join(dataDir, 'postgres')}\n`);
      running = launch(env());
      await untilReady(running);
      expect(running.stderr()).toContain(`removing a stale lock left by a PostgreSQL that did not shut down cleanly (pid ${other.pid} is now used by another program (sleep))`);
      expect(alive(other.pid!)).toBe(true); // left alone
      running.child.kill('SIGINT');
      expect(await running.exited).toBe(0);
    } finally {
      other.kill('SIGKILL');
    }
  }, 120_000);

  it('refuses invalid configuration with one line per problem, before starting anything', async () => {
    const refused = launch({
      ...env(),
      LOG_LEVEL: 'bogus',
      LOG_FORMAT: 'yaml',
      EMBEDDED_PG_PORT: 'abc',
      SEED_DEMO: 'maybe',
      RPC_TIMEOUT_MS: 'abc',
      CALL_EVENTS_BATCH_SIZE: '0',
      NATS_NAMESPACE: 'has space',
      DATABASE_URL: 'mysql://nope',
    });
    expect(await refused.exited).toBe(1);
    const lines = refused.stderr().slice(refused.stderr().indexOf('Invalid configuration:')).trim().split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines.slice(1).sort()).toEqual([
      '  - CALL_EVENTS_BATCH_SIZE must be an integer from 1 to 5000 (got "0")',
      '  - DATABASE_URL must be a postgres or postgresql URL (got "mysql://nope")',
      '  - EMBEDDED_PG_PORT must be an integer from 1 to 65535 (got "abc")',
      '  - LOG_FORMAT must be one of auto, json, pretty (got "yaml")',
      '  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "bogus")',
      "  - NATS_NAMESPACE may contain only letters, digits, '_' and '-' (at most 64) (got \"has space\")",
      '  - RPC_TIMEOUT_MS must be an integer from 100 to 120000 (got "abc")',
      '  - SEED_DEMO must be true or false (also 1/0, yes/no) (got "maybe")',
    ]);
    expect(refused.stderr()).not.toMatch(noStackTrace);
    expect(refused.stderr()).not.toContain('embedded PostgreSQL');
  }, 60_000);

  it('a port taken between the check and the listen is reported in the same one line', async () => {
    const port = await freePort();
    const raced = launch({ ...env(), PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false' });
    // The launcher checked the port before starting PostgreSQL; take it while the apps start.
    expect(await until(() => raced.stderr().includes('embedded PostgreSQL listening') || raced.child.exitCode !== null, 60_000)).toBe(true);
    const blocker: Server = createServer();
    await new Promise<void>((ok) => blocker.listen(port, '127.0.0.1', () => ok()));
    try {
      expect(await raced.exited).toBe(1);
      expect(raced.stderr()).toContain(`cannot start: HTTP port ${port} on 127.0.0.1 is already in use (set PORT to another port, or stop what is using it)`);
      expect(raced.stderr()).not.toMatch(noStackTrace);
      expect(raced.stderr()).not.toContain('EADDRINUSE');
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false); // stopped on the way out
    } finally {
      blocker.close();
    }
  }, 90_000);

  it('a data directory the postgres user cannot enter is refused with a clear message', async () => {
    if (process.getuid?.() !== 0) return; // only root hands the server to the postgres user
    const privateDir = mkdtempSync(join(tmpdir(), 'voice-private-'));
    try {
      const refused = launch({ ...env(), DATA_DIR: join(privateDir, 'data'), EMBEDDED_PG_PORT: String(await freePort()) });
      expect(await refused.exited).toBe(1);
      expect(refused.stderr()).toContain(`cannot enter ${privateDir}`);
    } finally {
      rmSync(privateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a port already in use is refused with a clear message, not a stack trace', async () => {
    const blocker: Server = createServer();
    const port = await new Promise<number>((ok) => blocker.listen(0, '127.0.0.1', () => ok((blocker.address() as { port: number }).port)));
    try {
      const blocked = launch({ ...env(), PORT: String(port), HOST: '127.0.0.1' });
      expect(await blocked.exited).toBe(1);
      expect(blocked.stderr()).toContain(`HTTP port ${port} on 127.0.0.1 is already in use`);
      expect(blocked.stderr()).not.toMatch(noStackTrace);
    } finally {
      blocker.close();
    }
  }, 30_000);
});
