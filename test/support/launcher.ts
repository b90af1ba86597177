import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm start` (scripts/start.mjs) as a user runs it, for the launcher's end-to-end tests. */
const root = resolve(fileURLToPath(import.meta.url), '../../..');

export async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

export interface Launch {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The launcher with `env` on top of this process's, without the variables that would point it at existing servers. */
export function launch(env: Record<string, string>): Launch {
  let out = '';
  let err = '';
  const cleanEnv = { ...process.env };
  delete cleanEnv.DATABASE_URL;
  delete cleanEnv.NATS_URL;
  delete cleanEnv.ADMIN_TOKEN;
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
    env: { ...cleanEnv, NODE_OPTIONS: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  // 'close', not 'exit': only then has everything the process wrote been read.
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** Resolves once the banner is printed, with its URL and demo key. */
export async function untilReady(run: Launch, timeoutMs = 90_000): Promise<{ url: string; apiKey: string; seconds: number }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = run.stdout().match(/is up in ([\d.]+) s — (http:\/\/\S+)/);
    const key = run.stdout().match(/demo key:\s+(vk_\w+)/);
    if (m && key) return { seconds: Number(m[1]), url: m[2], apiKey: key[1] };
    if (run.child.exitCode !== null) throw new Error(`launcher exited ${run.child.exitCode}: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`launcher not ready in time: ${run.stderr()}`);
}

/** Ctrl-C, and the launcher's exit code once it has stopped everything. */
export async function interrupt(run: Launch | undefined): Promise<number | null | undefined> {
  if (!run || run.child.exitCode !== null) return run?.child.exitCode;
  run.child.kill('SIGINT');
  return run.exited;
}
