import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';

/** The processes an operator runs: each app's `main.js`, and `npm start` in the distributed mode (NATS_URL set). */
const root = resolve(fileURLToPath(import.meta.url), '../..');

function run(args: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('app entry points', () => {
  it.each(['api-gateway', 'agents-service', 'conversations-service'])('%s refuses bad configuration with one clear message and exit 1', async (app) => {
    const p = run([join(root, 'apps', app, 'dist', 'main.js')], { DATABASE_URL: 'mysql://nope', NATS_URL: undefined });
    expect(await p.closed).toBe(1);
    expect(p.err()).toContain('Invalid configuration:');
    expect(p.err()).toContain('DATABASE_URL must be a postgres or postgresql URL');
    expect(p.err()).toContain('NATS_URL is required');
    expect(p.err()).not.toMatch(/\n\s+at /);
  }, 30_000);
});

describe('npm start, distributed mode (three processes over NATS)', () => {
  let db: TestDatabase;
  const namespace = randomNamespace();
  const adminToken = 'adm_distributed_test';
  let port: number;
  let launcher: ReturnType<typeof run>;

  beforeAll(async () => {
    db = await createTestDatabase('dist');
    port = await freePort();
    launcher = run([join(root, 'scripts', 'start.mjs')], {
      DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, ADMIN_TOKEN: adminToken,
      PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false',
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
  });

  it('serves the whole API from three processes', async () => {
    expect(launcher.out()).toContain('distributed, over NATS');
    const base = `http://127.0.0.1:${port}`;
    for (const app of ['agents-service ready', 'conversations-service ready', 'api-gateway ready']) expect(launcher.out()).toContain(app);
    const account = (await apiClient(base, adminToken).post('/v1/admin/accounts', { name: 'Dist', plan: 'starter', agent_limit: 2, voice_platforms: ['platform_a'] })).body.data;
    const api = apiClient(base, account.api_key);
    const agent = await api.post('/v1/agents', { name: 'Desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
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
    for (const app of ['agents-service stopping', 'conversations-service stopping', 'api-gateway stopping']) expect(launcher.out()).toContain(app);
  }, 30_000);
});
