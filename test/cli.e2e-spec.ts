import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/** The operator CLI, run as a process against a running system, as an operator would. */
const root = resolve(fileURLToPath(import.meta.url), '../..');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [join(root, 'scripts', 'cli.mjs'), ...args], {
      // DATA_DIR: a folder no `npm start` runs on, so a developer's own start is not picked up.
      env: { ...process.env, NODE_OPTIONS: '', ADMIN_TOKEN: '', VOICE_API_KEY: '', DATA_DIR: join(tmpdir(), 'voice-cli-test-no-start'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

const noStackTrace = /\n\s+at /;

describe('operator CLI', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let env: Record<string, string>;
  let agentId: string;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ name: 'CLI Co' });
    env = { VOICE_API_URL: system.baseUrl };
    const agent = await account.api.post('/v1/agents', { name: 'Desk', voice_platform: 'platform_a' });
    agentId = agent.body.data.id;
    const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z`;
    const call = (id: string, minute: number, end: Record<string, unknown>) => [
      { id: `${id}-s`, type: 'call.started', conversation_id: id, agent_id: agentId, occurred_at: at(minute), data: { caller_number: '+14155550101', start_time: at(minute) } },
      { id: `${id}-e`, conversation_id: id, agent_id: agentId, occurred_at: at(minute + 3), ...end },
    ];
    const events = [
      ...call('cli-1', 1, { type: 'call.ended', data: { end_time: at(4), duration: 180, summary: 'Refund issued, "quickly", thanks', outcome: 'resolved' } }),
      // A summary a spreadsheet would run as a formula, and topics that start like one.
      ...call('cli-2', 10, { type: 'call.ended', data: { end_time: at(13), duration: 180, summary: '=HYPERLINK("http://evil.example","Booked")', topics: ['@billing', 'dental'], outcome: 'appointment_booked' } }),
      ...call('cli-3', 20, { type: 'call.failed', data: { failure_reason: 'network' } }),
    ];
    expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      if ((await account.api.get('/v1/conversations')).body.meta.total === 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('prints help for every command and exits 0; usage errors exit 2', async () => {
    for (const args of [['--help'], ['accounts', 'create', '--help'], ['keys', '--help'], ['agents', 'list', '--help'], ['integrations', '--help'], ['conversations', 'list', '--help'], ['conversations', 'export', '--help'], ['projections', 'rebuild', '--help']]) {
      const r = await cli(args, env);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toContain('Usage:');
    }
    expect((await cli(['frobnicate'], env)).code).toBe(2);
    expect((await cli(['keys', 'list'], env))).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key') });
    // No command, or a command group without its subcommand: the help, as a usage error.
    for (const args of [[], ['keys'], ['accounts'], ['projections'], ['conversations'], ['agents'], ['integrations']]) {
      const r = await cli(args, env);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain('Usage:');
    }
    // Malformed URLs are usage errors too, not connection failures.
    const badDb = await cli(['projections', 'rebuild', 'conversations', '--database-url', 'notaurl'], env);
    expect(badDb).toMatchObject({ code: 2, stderr: expect.stringContaining("'--database-url <url>' argument 'notaurl' is invalid") });
    const badUrl = await cli(['--url', 'notaurl', 'keys', 'list', '--api-key', 'vk_x'], env);
    expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringContaining("'--url <url>' argument 'notaurl' is invalid") });
  });

  it('creates an account with the admin token, and refuses a wrong token with exit 1', async () => {
    const ok = await cli(['accounts', 'create', '--name', 'Made by CLI', '--agent-limit', '3', '--platforms', 'platform_b', '--admin-token', system.adminToken], env);
    expect(ok.code).toBe(0);
    const created = JSON.parse(ok.stdout);
    expect(created).toMatchObject({ name: 'Made by CLI', agent_limit: 3, voice_platforms: ['platform_b'] });
    expect(created.api_key).toMatch(/^vk_/);
    const refused = await cli(['accounts', 'create', '--name', 'x', '--admin-token', 'wrong'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401');
  });

  it('creates, lists and revokes keys; a revoked key stops working at once', async () => {
    const created = await cli(['keys', 'create', '--scopes', 'conversations:read', '--name', 'reporting', '--api-key', account.api_key], env);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.scopes).toEqual(['conversations:read']);
    expect((await system.client(key.api_key).get('/v1/conversations')).status).toBe(200);

    const listed = await cli(['keys', 'list', '--api-key', account.api_key], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.api_key);

    const revoked = await cli(['keys', 'revoke', key.id, '--api-key', account.api_key], env);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${key.id}\n` });
    expect((await system.client(key.api_key).get('/v1/conversations')).status).toBe(401);
  });

  it('exports conversations with the list filters as JSON lines and as CSV', async () => {
    const jsonl = await cli(['conversations', 'export', '--status', 'completed', '--sort-order', 'asc', '--api-key', account.api_key], env);
    expect(jsonl.code).toBe(0);
    expect(jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['cli-1', 'cli-2']);
    expect(jsonl.stderr).toContain('exported 2 conversations');

    const csv = await cli(['conversations', 'export', '--format', 'csv', '--sort-order', 'asc', '--api-key', account.api_key], env);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,agent_id,agent_name,caller_number,status,start_time,end_time,duration,sentiment,outcome,topics,has_recording,has_transcript,summary,created_at');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('"Refund issued, ""quickly"", thanks"');
    expect(lines[3]).toMatch(/^cli-3,.*,failed,/);
    // Formula-looking text is neutralised with a leading '; caller numbers (+1…) stay as they are.
    expect(lines[2]).toContain(`,"'=HYPERLINK(""http://evil.example"",""Booked"")",`);
    expect(lines[2]).toContain(`,'@billing;dental,`);
    for (const line of lines.slice(1)) expect(line).toContain(',+14155550101,');
    const raw = await cli(['conversations', 'export', '--format', 'csv', '--no-formula-guard', '--sort-order', 'asc', '--api-key', account.api_key], env);
    expect(raw.stdout.trim().split('\n')[2]).toContain(`,"=HYPERLINK(""http://evil.example"",""Booked"")",`);

    const refused = await cli(['conversations', 'export', '--status', 'done', '--api-key', account.api_key], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_parameter');
  });

  it('rebuilds the conversations projection from its event store and finds it identical', async () => {
    const r = await cli(['projections', 'rebuild', 'conversations', '--database-url', system.databaseUrl], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{')))).toMatchObject({ projection: 'conversations', streams: 3, identical: true, swapped: false });
    // Not a terminal here, so progress comes as lines rather than a redrawn bar.
    expect(r.stderr).toContain('re-folding conversation streams: 0/3');
    expect(r.stderr).toContain('re-folding conversation streams: 3/3');
  });

  it('lists every key, following the pages', async () => {
    const other = await system.createAccount({ name: 'Many keys' });
    for (let i = 0; i < 104; i++) expect((await other.api.post('/v1/api-keys', { name: `k${i}`, scopes: ['conversations:read'] })).status).toBe(201);
    const listed = await cli(['keys', 'list', '--api-key', other.api_key], env);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout);
    expect(keys).toHaveLength(105); // the account's first key, and the 104 made here
    expect(new Set(keys.map((k: { id: string }) => k.id)).size).toBe(105);
  }, 60_000);

  it('rebuild: an unreachable database exits 3, a refusing one exits 1, both in one line', async () => {
    const port = await freePort();
    const unreachable = await cli(['projections', 'rebuild', 'conversations', '--database-url', `postgres://u:secret@127.0.0.1:${port}/voice`], env);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`cannot reach PostgreSQL at postgres://127.0.0.1:${port}/voice: ECONNREFUSED`);
    expect(unreachable.stderr).not.toContain('secret');
    expect(unreachable.stderr).not.toMatch(noStackTrace);

    const missing = new URL(system.databaseUrl);
    missing.pathname = '/no_such_database_for_cli_test';
    const refused = await cli(['projections', 'rebuild', 'conversations', '--database-url', missing.toString()], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('database "no_such_database_for_cli_test" does not exist');
    expect(refused.stderr).not.toMatch(noStackTrace);
  });

  it('rebuild without --database-url uses the embedded database of DATA_DIR, and says which', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voice-cli-data-'));
    try {
      const noDb = await cli(['projections', 'rebuild', 'conversations'], { ...env, DATA_DIR: dataDir, DATABASE_URL: '' });
      expect(noDb).toMatchObject({ code: 2, stderr: expect.stringContaining('no database: pass --database-url') });

      // An embedded database that is not running: nothing to connect to.
      mkdirSync(join(dataDir, 'postgres'));
      writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
      const stopped = await cli(['projections', 'rebuild', 'conversations'], { ...env, DATA_DIR: dataDir, DATABASE_URL: '' });
      expect(stopped).toMatchObject({ code: 3, stderr: expect.stringContaining(`the embedded database in ${dataDir}/ is not running`) });

      // Running (its lock file names its port), here on a port where nothing answers.
      const port = await freePort();
      writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `${process.pid}\n${join(dataDir, 'postgres')}\n0\n${port}\n`);
      const used = await cli(['projections', 'rebuild', 'conversations'], { ...env, DATA_DIR: dataDir, DATABASE_URL: '' });
      expect(used.stderr).toContain(`using the embedded database of ${dataDir}/: postgres://127.0.0.1:${port}/voice`);
      expect(used.code).toBe(3);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the simulator exits 3 when the service cannot be reached', async () => {
    const port = await freePort();
    const r = await cli(['simulate', '--calls', '1', '--url', `http://127.0.0.1:${port}`, '--api-key', 'vk_x', '--agent-id', 'agt_x'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
  });

  it('runs the simulator through the HTTP ingest', async () => {
    const before = (await account.api.get('/v1/conversations')).body.meta.total;
    const r = await cli(['simulate', '--calls', '5', '--seed', '7', '--via', 'http', '--url', system.baseUrl, '--api-key', account.api_key], env);
    expect(r.code).toBe(0);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      if ((await account.api.get('/v1/conversations')).body.meta.total === before + 5) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect((await account.api.get('/v1/conversations')).body.meta.total).toBe(before + 5);
  });

  it('places calls through the platform simulators, which deliver them as signed webhooks', async () => {
    const before = (await account.api.get('/v1/conversations')).body.meta.total;
    const urls = system.platforms.simulators.urls;
    const r = await cli(
      ['simulate', '--calls', '6', '--seed', '11', '--url', system.baseUrl, '--api-key', account.api_key, '--platform-a-url', urls.platformA, '--platform-b-url', urls.platformB],
      env,
    );
    expect(r.stdout).toMatch(/placed 6 calls on \d+ agents through the platform simulators .* 0 not delivered/);
    expect(r.code).toBe(0);
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      if ((await account.api.get('/v1/conversations')).body.meta.total === before + 6) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect((await account.api.get('/v1/conversations')).body.meta.total).toBe(before + 6);
    const deliveries = await account.api.get('/v1/webhook-deliveries?outcome=accepted');
    expect(deliveries.body.meta.total).toBeGreaterThanOrEqual(6);
  });

  it('agents: create, list, get, pause, resume and delete, as tables (--table) and as JSON (--json)', async () => {
    const created = await cli(['--json', 'agents', 'create', '--name', 'Night Line', '--voice-platform', 'platform_b', '--language', 'en', '--api-key', account.api_key], env);
    expect(created.code).toBe(0);
    const agent = JSON.parse(created.stdout);
    expect(agent).toMatchObject({ name: 'Night Line', voice_platform: 'platform_b', status: 'active' });

    const table = await cli(['--table', 'agents', 'list', '--api-key', account.api_key], env);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+PLATFORM\s+PHONE\s+SYNC\s+UPDATED$/);
    expect(rows.find((r) => r.startsWith(agent.id))).toMatch(new RegExp(`^${agent.id}\\s+Night Line\\s+active\\s+platform_b\\s`));
    expect(table.stdout).toContain('page 1 of 1 (2 agents)');
    const filtered = await cli(['--json', 'agents', 'list', '--search', 'night', '--api-key', account.api_key], env);
    expect(JSON.parse(filtered.stdout).map((a: { id: string }) => a.id)).toEqual([agent.id]);

    const got = await cli(['--table', 'agents', 'get', agent.id, '--api-key', account.api_key], env);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/^id\s+agt_/m);
    expect(got.stdout).toMatch(/^name\s+Night Line$/m);

    // Pause and resume are conditional on the version just read: an agent already at version 2 or more works.
    expect(await cli(['--table', 'agents', 'pause', agent.id, '--api-key', account.api_key], env)).toMatchObject({ code: 0, stdout: `${agent.id} is paused\n` });
    expect((await account.api.get(`/v1/agents/${agent.id}`)).body.data.status).toBe('paused');
    const resumed = await cli(['--json', 'agents', 'resume', agent.id, '--api-key', account.api_key], env);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: agent.id, status: 'active' });

    expect(await cli(['agents', 'delete', agent.id, '--api-key', account.api_key], env)).toMatchObject({ code: 0, stdout: `deleted ${agent.id}\n` });
    const gone = await cli(['agents', 'get', agent.id, '--api-key', account.api_key], env);
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringContaining('404 not_found') });
    const invalid = await cli(['agents', 'create', '--name', 'x', '--voice-platform', 'platform_z', '--api-key', account.api_key], env);
    expect(invalid.code).toBe(2);
  }, 60_000);

  it('conversations: list with filters, get and transcript', async () => {
    const table = await cli(['--table', 'conversations', 'list', '--status', 'completed', '--sort-order', 'asc', '--per-page', '1', '--api-key', account.api_key], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+AGENT\s+CALLER\s+STATUS\s+STARTED\s+DURATION\s+SENTIMENT\s+OUTCOME$/);
    expect(table.stdout.split('\n')[1]).toMatch(/^cli-1\s+Desk\s+\+14155550101\s+completed\s/);
    expect(table.stdout).toMatch(/page 1 of \d+ \(\d+ conversations\); --page 2 for more/);
    const json = await cli(['--json', 'conversations', 'list', '--status', 'failed', '--end-date', '2026-11-21T00:00:00Z', '--api-key', account.api_key], env);
    expect(JSON.parse(json.stdout).map((c: { id: string }) => c.id)).toEqual(['cli-3']);

    const got = await cli(['--json', 'conversations', 'get', 'cli-1', '--api-key', account.api_key], env);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: 'cli-1', summary: 'Refund issued, "quickly", thanks' });

    const segments = [{ speaker: 'caller', text: 'I was charged twice.', start_ms: 0, end_ms: 1500 }];
    const posted = await account.api.post('/v1/call-events', { events: [{ id: 'cli-1-t', type: 'call.transcript', conversation_id: 'cli-1', agent_id: agentId, occurred_at: '2026-11-20T10:04:00Z', data: { segments } }] });
    expect(posted.status).toBe(202);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      if ((await account.api.get('/v1/conversations/cli-1/transcript')).status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const text = await cli(['conversations', 'transcript', 'cli-1', '--format', 'text', '--api-key', account.api_key], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('I was charged twice.');
    const srt = await cli(['conversations', 'transcript', 'cli-1', '--format', 'srt', '--api-key', account.api_key], env);
    expect(srt.stdout).toContain('00:00:00,000 --> 00:00:01,500');
    const asJson = await cli(['--json', 'conversations', 'transcript', 'cli-1', '--api-key', account.api_key], env);
    expect(JSON.parse(asJson.stdout).segments).toEqual([expect.objectContaining({ text: 'I was charged twice.' })]);
  });

  it('keys and integrations as tables', async () => {
    const keys = await cli(['--table', 'keys', 'list', '--api-key', account.api_key], env);
    expect(keys.code).toBe(0);
    expect(keys.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+SCOPES\s+LAST USED\s+CREATED$/);
    expect(keys.stdout).toMatch(/^key_\w+\s+/m);
    expect(keys.stdout).not.toContain(account.api_key);

    const integrations = await cli(['--table', 'integrations', 'list', '--api-key', account.api_key], env);
    expect(integrations.code).toBe(0);
    expect(integrations.stdout).toMatch(/^platform_a\s+\w+\s+http:\/\/127\.0\.0\.1:\d+/m);
    expect(integrations.stdout).toMatch(/^platform_b\s+/m);
    const one = await cli(['--json', 'integrations', 'get', 'platform_a', '--api-key', account.api_key], env);
    expect(JSON.parse(one.stdout)).toMatchObject({ platform: 'platform_a', base_url: system.platforms.simulators.urls.platformA });
  });

  it('after `npm start`, finds its URL, its simulators and its demo key in DATA_DIR; simulated calls happen now', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'voice-cli-start-'));
    try {
      const urls = system.platforms.simulators.urls;
      // What a running `npm start` leaves there: where it listens, and the demo account's key.
      writeFileSync(join(dataDir, 'ports.json'), JSON.stringify({ pid: process.pid, api: system.baseUrl, platform_a: urls.platformA, platform_b: urls.platformB }));
      writeFileSync(join(dataDir, 'demo.json'), JSON.stringify({ apiKey: account.api_key }));
      const local = { DATA_DIR: dataDir, VOICE_API_URL: '' };

      const listed = await cli(['--json', 'agents', 'list'], local);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toContain(agentId);

      const before = new Set((await account.api.get('/v1/conversations?per_page=100')).body.data.map((c: { id: string }) => c.id));
      const simulated = await cli(['simulate', '--calls', '3', '--seed', '5'], local);
      expect(simulated.stdout).toMatch(/placed 3 calls on \d+ agents through the platform simulators .* 0 not delivered/);
      expect(simulated.code).toBe(0);
      let fresh: { id: string; start_time: string; end_time: string | null }[] = [];
      for (const deadline = Date.now() + 15_000; Date.now() < deadline && fresh.length < 3; ) {
        fresh = (await account.api.get('/v1/conversations?per_page=100')).body.data.filter((c: { id: string }) => !before.has(c.id));
        if (fresh.length < 3) await new Promise((r) => setTimeout(r, 100));
      }
      expect(fresh).toHaveLength(3);
      // Placed now (each call ends as it is placed, having lasted its duration), so at the top of the list, not days back.
      for (const c of fresh) {
        expect(Math.abs(Date.now() - Date.parse(c.end_time ?? c.start_time))).toBeLessThan(2 * 60_000);
        expect(Date.now() - Date.parse(c.start_time)).toBeLessThan(30 * 60_000);
      }

      // Without a running start the demo key is not assumed: a file left by a start killed with SIGKILL, or none.
      writeFileSync(join(dataDir, 'ports.json'), JSON.stringify({ pid: 2147483646, api: system.baseUrl }));
      expect(await cli(['agents', 'list', '--url', system.baseUrl], local)).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key') });
      rmSync(join(dataDir, 'ports.json'));
      expect(await cli(['agents', 'list', '--url', system.baseUrl], local)).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key') });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('says so, with exit 3, when the service cannot be reached', async () => {
    const r = await cli(['keys', 'list', '--api-key', 'vk_x', '--url', 'http://127.0.0.1:1'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot reach http://127.0.0.1:1');
  });
});
