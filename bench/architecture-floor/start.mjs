// Starts the architecture's floor — a bare gateway and a bare service, each its own process, over the same
// nats-server and database as the stack under test — and stops it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Runs `file` until it prints "listening [port]"; resolves with the process and the port. */
function startProcess(label, file, env) {
  const child = spawn(process.execPath, [join(here, file)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  child.stderr.on('data', (d) => { tail = (tail + d).slice(-4_000); });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start in 30 s:\n${tail}`)), 30_000);
    child.stdout.on('data', (d) => {
      const m = /listening(?: (\d+))?/.exec(String(d));
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      ok({ label, pid: child.pid, port: m[1] && Number(m[1]), stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM'); }) });
    });
    child.once('exit', (code) => { clearTimeout(timer); fail(new Error(`${label} exited (${code}):\n${tail}`)); });
  });
}

/**
 * `shapes`: name → { page, count, params } (the list statements of the raw baseline); `agent`: { sql, params }.
 * Resolves with the floor gateway's base URL, the two processes (label, pid) and `stop()`.
 */
export async function startArchitectureFloor({ natsUrl, databaseUrl, shapes, agent }) {
  const env = { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, FLOOR_SUBJECT: `floor${randomBytes(4).toString('hex')}`, FLOOR_SHAPES: JSON.stringify(shapes), FLOOR_AGENT: JSON.stringify(agent) };
  const service = await startProcess('floor service', 'service.mjs', env);
  const gateway = await startProcess('floor gateway', 'gateway.mjs', env).catch(async (err) => { await service.stop(); throw err; });
  return {
    url: `http://127.0.0.1:${gateway.port}`,
    processes: [gateway, service],
    stop: async () => { await gateway.stop(); await service.stop(); },
  };
}
