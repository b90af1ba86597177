import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl, type TestDatabase } from '@voice/testing';

/**
 * `npm start` as an operator sees it in a terminal: run inside a pseudo-terminal (util-linux `script`), so the
 * launcher and the apps find a TTY on stdout, and Ctrl-C is the character typed into that terminal.
 */
const root = resolve(fileURLToPath(import.meta.url), '../..');

/** INTEGRATIONS_KEY for the distributed mode's agents-service (32 bytes, base64). */
const INTEGRATIONS_KEY = Buffer.alloc(32, 7).toString('base64');

async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

interface Terminal {
  child: ChildProcess;
  /** What the terminal shows, colours and carriage returns removed. */
  screen: () => string;
  /** What the terminal received, as written (colour codes included). */
  raw: () => string;
  exited: Promise<number | null>;
  ctrlC: () => void;
}

function startInTerminal(env: Record<string, string | undefined>): Terminal {
  let raw = '';
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', `exec '${process.execPath}' '${join(root, 'scripts', 'start.mjs')}'`, '/dev/null'], {
    // LOG_LEVEL unset: what an operator who sets nothing gets.
    // `script` runs the command through $SHELL (or /bin/sh): `exec` makes node the terminal's foreground process, as
    // `node scripts/start.mjs` typed at a prompt is. Without it dash stays in between and dies of the Ctrl-C itself.
    env: { ...process.env, SHELL: '/bin/sh', NODE_OPTIONS: '', LOG_LEVEL: undefined, LOG_FORMAT: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm-256color', INTEGRATIONS_KEY, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (raw += d));
  child.stderr!.on('data', (d) => (raw += d));
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  return {
    child,
    raw: () => raw,
    screen: () => raw.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, ''),
    exited,
    ctrlC: () => child.stdin!.write('\x03'),
  };
}

async function until(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out; the terminal shows:\n${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const BANNER_END = 'Ctrl-C to stop.\n';
/** What the terminal shows below the banner. */
const afterBanner = (screen: string) => screen.slice(screen.indexOf(BANNER_END) + BANNER_END.length);

describe.each([
  ['one process', false],
  ['distributed', true],
])('npm start in a terminal (%s)', (_mode, distributed) => {
  let db: TestDatabase;
  let terminal: Terminal;
  let url: string;
  const namespace = randomNamespace();
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-terminal-'));

  beforeAll(async () => {
    db = await createTestDatabase('terminal');
    terminal = startInTerminal({
      DATABASE_URL: db.url, NATS_URL: distributed ? testNatsUrl() : undefined, NATS_NAMESPACE: namespace, ADMIN_TOKEN: undefined,
      PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0',
    });
    await until(() => terminal.screen().includes(BANNER_END) || terminal.child.exitCode !== null, 90_000, terminal.screen);
    url = terminal.screen().match(/is up in [\d.]+ s — (http:\/\/\S+)/)?.[1] ?? '';
  }, 120_000);
  afterAll(async () => {
    if (terminal?.child.exitCode === null) {
      terminal.child.kill('SIGKILL');
      await terminal.exited;
    }
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints no info lines while starting: the launcher’s progress, then the banner, which signs the console in with the demo key', () => {
    const screen = terminal.screen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const key = screen.match(/demo key:\s+(vk_\w+)/)?.[1];
    expect(key).toBeDefined();
    expect(screen).toContain(`\n  console:   ${url}/app#api_key=${key}\n`);
    const beforeBanner = screen.slice(0, screen.indexOf('Voice agent operations API is up')).split('\n').filter((line) => line.trim());
    expect(beforeBanner).toContainEqual(expect.stringMatching(/^\[start\] building/));
    // No app entry below warn, in either format (warnings and errors would still show).
    const appInfoLines = beforeBanner.filter((line) => /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|DEBUG|TRACE):/.test(line) || line.trimStart().startsWith('{'));
    expect(appInfoLines).toEqual([]);
    expect(screen.endsWith(BANNER_END)).toBe(true);
  });

  it('the banner stays in view until a request comes in, which is logged as a human-readable line', async () => {
    await new Promise((r) => setTimeout(r, 1500));
    // Idle, nothing is logged; a loaded machine may still print a line or two (a slow dependency), never a stream of them:
    // the banner's console link stays on a 24-line terminal. Matched as text, so a failure shows what was printed.
    const idle = terminal.screen();
    const printedIdle = afterBanner(idle);
    if (printedIdle.trim()) process.stdout.write(`printed after the banner while idle:\n${printedIdle}\n`);
    expect(idle.split('\n').slice(-25).join('\n')).toMatch(/\n {2}console: {3}http:\/\/\S+\/app#api_key=/);

    expect((await fetch(`${url}/health`, { headers: { 'x-request-id': 'terminal-check' } })).status).toBe(200);
    await until(() => terminal.screen().includes('terminal-check'), 5_000, terminal.screen);
    const after = afterBanner(terminal.screen());
    const line = after.split('\n').find((l) => l.includes('terminal-check'))!;
    expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: api-gateway: request completed \{.*"path":"\/health","status":200/);
    expect(terminal.raw()).toMatch(/\x1b\[\d+mINFO/); // coloured, as on any terminal that supports it
  });

  it('Ctrl-C stops everything and exits 0', async () => {
    terminal.ctrlC();
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen()).toContain('[start] shutting down');
    // Stopping is orderly: nothing fails with a stack trace on the way down.
    const screen = terminal.screen();
    const stopping = screen.slice(screen.indexOf('[start] shutting down'));
    expect(stopping).not.toMatch(/\n\s+at /);
  }, 30_000);
});
