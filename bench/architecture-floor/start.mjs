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
  // What a floor process says on stderr is shown (it says nothing unless it fails).
  child.stderr.on('data', (d) => { tail = (tail + d).slice(-4_000); process.stderr.write(`[${label}] ${d}`); });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start in 30 s:\n${tail}`)), 30_000);
    child.stdout.on('data', (d) => {
      const m = /listening(?: (\d+))?/.exec(String(d));
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const started = { label, pid: child.pid, port: m[1] && Number(m[1]), exited: false, stop: () => new Promise((done) => { if (started.exited) done(); else { child.once('exit', done); child.kill('SIGTERM'); } }) };
      child.once('exit', () => { started.exited = true; });
      ok(started);
    });
    child.once('exit', (code) => { clearTimeout(timer); fail(new Error(`${label} exited (${code}):\n${tail}`)); });
  });
}

/**
 * `shapes`: name → { page, count, params } (the list statements of the raw baseline); `agent`: { sql, params };
 * `ingestAccountId`: call events posted to /events are recorded for this account in schema floor (created here).
 * Resolves with the floor gateway's base URL, the two processes (label, pid) and `stop()`.
 */
export async function startArchitectureFloor({ natsUrl, databaseUrl, shapes = {}, agent, ingestAccountId }) {
  const suffix = randomBytes(4).toString('hex');
  const env = {
    NATS_URL: natsUrl, DATABASE_URL: databaseUrl, FLOOR_SUBJECT: `floor${suffix}`, FLOOR_SHAPES: JSON.stringify(shapes), FLOOR_AGENT: JSON.stringify(agent),
    // With an account: the floor's service also consumes call events (POST /events) into tables of schema floor.
    ...(ingestAccountId ? { FLOOR_INGEST_STREAM: `FLOOR_${suffix}`, FLOOR_ACCOUNT: ingestAccountId } : {}),
  };
  const service = await startProcess('floor service', 'service.mjs', env);
  const gateway = await startProcess('floor gateway', 'gateway.mjs', env).catch(async (err) => { await service.stop(); throw err; });
  return {
    url: `http://127.0.0.1:${gateway.port}`,
    processes: [gateway, service],
    stop: async () => { await gateway.stop(); await service.stop(); },
  };
}
