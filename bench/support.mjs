// What every benchmark script shares: the built modules, percentiles, a fresh database, and its sections of
// BENCHMARKS.md and bench/results/*.md (between `<!-- name:start -->` and `<!-- name:end -->`, appended when absent).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Imports built entry points (paths from the repository root), or exits asking for a build. */
export async function importBuilt(paths) {
  for (const p of Object.values(paths)) {
    if (!existsSync(join(root, p))) {
      console.error('bench: build first (npm run build)');
      process.exit(1);
    }
  }
  const entries = await Promise.all(Object.entries(paths).map(async ([name, p]) => [name, await import(pathToFileURL(join(root, p)).href)]));
  return Object.fromEntries(entries);
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

export function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), max: sorted.at(-1) };
}

export const ms = (n) => n.toFixed(1);

/** The URL of database `name` on the server of `serverUrl`. */
function databaseUrl(serverUrl, name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A new database on the benchmark's server, dropped by `drop()`. */
export async function freshDatabase(adminUrl, label) {
  const name = `voice_bench_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  return {
    url: databaseUrl(adminUrl, name),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

/**
 * A database kept from an earlier bench (`BENCH_KEEP=1 npm run bench:list`): `drop()` drops only the scratch
 * schemas a bench adds to it, the rest stays.
 */
export function existingDatabase(serverUrl, name, scratchSchemas) {
  const url = databaseUrl(serverUrl, name);
  return {
    url,
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${scratchSchemas.join(', ')} CASCADE`).finally(() => client.end());
    },
  };
}

/**
 * Replaces the block between `<!-- marker:start -->` and `<!-- marker:end -->` of a markdown file of the repository
 * (`BENCHMARKS.md` unless another path from the repository root is given), or appends it when the markers are absent.
 * BENCHMARKS.md gets a bench's headline figures; its full tables and plans go to a file under bench/results/.
 */
export function writeBenchmarkSection(marker, section, file = 'BENCHMARKS.md') {
  const path = join(root, file);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const marked = new RegExp(`<!-- ${marker}:start -->[\\s\\S]*<!-- ${marker}:end -->`);
  const block = `<!-- ${marker}:start -->\n${section}\n<!-- ${marker}:end -->`;
  const appended = current.trim() ? `${current.trimEnd()}\n\n${block}\n` : `${block}\n`;
  // A function as the replacement: in a replacement string `$&`, `$'` and `$\`` are special, and plans hold SQL and JSON.
  writeFileSync(path, marked.test(current) ? current.replace(marked, () => block) : appended);
}

/** JSON over HTTP to the gateway under test: `call(method, path, bearer, body)` → `{ status, body }`. */
export function apiCaller(baseUrl) {
  return async (method, path, token, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  };
}

/**
 * Starts an app's built entry point (`apps/<app>/dist/main.js`) as its own process; resolves once it has logged
 * that it is ready. `stop()` sends SIGTERM and waits for the exit.
 */
export async function startBuiltApp(app, label, env) {
  const started = performance.now();
  // BENCH_CPU_PROF=<dir>: each app writes a V8 CPU profile there when it stops (open with Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${label.replace(/\W+/g, '-')}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profile, join(root, 'apps', app, 'dist', 'main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (d) => { tail = (tail + d).slice(-8_000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start in 60 s:\n${tail}`)), 60_000);
    const check = () => {
      if (new RegExp(`${app} ready`).test(tail)) {
        clearTimeout(timer);
        child.stdout.off('data', check);
        ok();
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => { clearTimeout(timer); fail(new Error(`${label} exited (${code}):\n${tail}`)); });
  });
  child.removeAllListeners('exit');
  return { label, child, pid: child.pid, startMs: performance.now() - started, stop: () => new Promise((ok) => { child.once('exit', ok); child.kill('SIGTERM'); }) };
}
