#!/usr/bin/env node
// `node bench/rate-limiter.bench.mjs` — what the rate limiter costs a request: `GET /v1/api-keys` (answered by the
// gateway alone: no bus, one key lookup) through one gateway, autocannon with 10 connections, with the limiter on
// (a plan whose budgets the load never reaches) and off (RATE_LIMITS=false), each gateway a process of its own on a
// fresh database. Reports req/s, p50, the gateway's CPU per request, and the limiter's PostgreSQL calls per request.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freshDatabase, importBuilt, writeBenchmarkSection } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const quick = process.argv.includes('--quick');
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

/** Calls of the limiter's functions on the shared buckets, counted by a statement trigger (pg_stat_statements is not preloaded here). */
async function countLimiterCalls(url) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`CREATE TABLE IF NOT EXISTS public.bench_limiter_calls (n bigint NOT NULL)`);
  await c.query(`INSERT INTO public.bench_limiter_calls VALUES (0)`);
  await c.query(`CREATE OR REPLACE FUNCTION public.bench_count_limiter_call() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE public.bench_limiter_calls SET n = n + 1; RETURN NULL; END $$`);
  await c.query(`CREATE TRIGGER bench_count AFTER INSERT ON gateway.rate_limit_buckets FOR EACH STATEMENT EXECUTE FUNCTION public.bench_count_limiter_call()`);
  return { read: async () => Number((await c.query(`SELECT n FROM public.bench_limiter_calls`)).rows[0].n), close: () => c.end() };
}

// On and off alternate, ROUNDS times each, so a neighbour's load on the shared machine weighs on both alike.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const runs = [];
for (const limiter of Array.from({ length: ROUNDS }, () => ['on', 'off']).flat()) {
  const db = await freshDatabase(adminUrl, 'ratelimiter');
  const adminToken = `admin_${randomBytes(8).toString('hex')}`;
  const namespace = `bench_${randomBytes(4).toString('hex')}`;
  const child = spawn(process.execPath, [join(here, 'rate-limiter', 'gateway.mjs'), db.url, natsUrl, namespace, adminToken, limiter], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((ok, fail) => {
    child.stdout.on('data', (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) ok(Number(m[1])); });
    child.once('exit', (code) => fail(new Error(`gateway exited (${code})`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/v1/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', plan: 'bench', agent_limit: 5 }),
  });
  const key = (await created.json()).data.api_key;
  const options = { url: `${base}/v1/api-keys?per_page=1`, connections: 10, headers: { authorization: `Bearer ${key}` } };
  const calls = await countLimiterCalls(db.url);
  await autocannon({ ...options, duration: 1 }); // warm-up
  const [cpuBefore, callsBefore] = [cpuSeconds(child.pid), await calls.read()];
  const seconds = quick ? 2 : SECONDS;
  const r = await autocannon({ ...options, duration: seconds });
  const cpuMs = ((cpuSeconds(child.pid) - cpuBefore) * 1000) / r.requests.total;
  const callsPerRequest = ((await calls.read()) - callsBefore) / r.requests.total;
  if (r.non2xx + r.errors > 0) throw new Error(`limiter ${limiter}: ${r.non2xx + r.errors} failed requests`);
  runs.push({ limiter, perSecond: r.requests.total / seconds, p50: r.latency.p50, cpuMs, callsPerRequest });
  console.error(`[bench:rate-limiter] limiter ${limiter}: ${runs.at(-1).perSecond.toFixed(0)} req/s, ${cpuMs.toFixed(3)} ms CPU per request, ${callsPerRequest.toFixed(4)} limiter calls per request`);
  await calls.close();
  child.removeAllListeners('exit');
  const exited = new Promise((ok) => child.once('exit', ok));
  child.kill('SIGTERM');
  await exited;
  await db.drop();
}
/**
 * The limiter's own CPU per admitted request, in this process: admit() on a key and account of the roomy plan, as the
 * access guard calls it (the leases included: a slice is leased again when spent or expired), the response a stub.
 */
async function limiterCpuMicroseconds() {
  const built = await importBuilt({
    limiter: 'apps/api-gateway/dist/rate-limits/rate-limiter.js',
    store: 'apps/api-gateway/dist/rate-limits/rate-limits.store.js',
    database: 'apps/api-gateway/dist/database/gateway-database.js',
    rules: 'apps/api-gateway/dist/rate-limits/rate-limits.rules.js',
  });
  const db = await freshDatabase(adminUrl, 'ratelimiter');
  const dataSource = await built.database.openGatewayDatabase(db.url);
  try {
    const settings = { rateLimits: built.rules.rateLimitSettings({ plans: { bench: { reads: { per_second: 1_000_000, burst: 1_000_000 } } } }) };
    const limiter = new built.limiter.RateLimiter(new built.store.RateLimitsStore(dataSource), settings, { warn() {} });
    const res = { set: () => res };
    const caller = { key_id: 'key_bench', account_id: 'acc_bench', plan: 'bench' };
    const admit = async () => {
      limiter.refuseWhileRefused(res, 'hash', 'reads');
      await limiter.admit(res, 'hash', caller, 'reads');
    };
    for (let i = 0; i < 20_000; i++) await admit(); // warm-up: JIT, slices grown
    const count = 200_000;
    const started = process.cpuUsage();
    for (let i = 0; i < count; i++) await admit();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / count;
  } finally {
    await dataSource.destroy();
    await db.drop();
  }
}
const ownMicroseconds = await limiterCpuMicroseconds();

const mean = (limiter) => {
  const of = runs.filter((r) => r.limiter === limiter);
  const avg = (f) => of.reduce((sum, r) => sum + r[f], 0) / of.length;
  return { limiter, perSecond: avg('perSecond'), p50: avg('p50'), cpuMs: avg('cpuMs'), callsPerRequest: avg('callsPerRequest') };
};
const rows = [mean('on'), mean('off')];
const [on, off] = rows;
const section = [
  '## Rate limiter cost (`GET /v1/api-keys` through one gateway)',
  '',
  `**With the limiter on the gateway serves ${(on.perSecond / off.perSecond).toFixed(2)}× its throughput without it; the limiter costs ${(((on.cpuMs - off.cpuMs) / on.cpuMs) * 100).toFixed(1)} % of a request's gateway CPU and ${on.callsPerRequest.toFixed(4)} PostgreSQL calls per request.**`,
  '',
  `Command: \`node bench/rate-limiter.bench.mjs\`. Run on ${new Date().toISOString()}: on and off alternating ${ROUNDS} times (the mean of each below), ${SECONDS} s per run after 1 s of warm-up, autocannon with 10 connections, one gateway process on a fresh database, a plan whose budgets the load never reaches.`,
  '',
  `The limiter's own CPU, measured in process (200,000 admits as the access guard makes them, stub response): **${ownMicroseconds.toFixed(2)} µs per request**, ${((ownMicroseconds / 1000 / on.cpuMs) * 100).toFixed(1)} % of the gateway's CPU per request with it on; the rest of the difference between the rows is the RateLimit headers written and the machine's noise.`,
  '',
  '| limiter | req/s | p50 ms | gateway CPU ms per request | limiter PostgreSQL calls per request |',
  '|---|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.limiter} | ${r.perSecond.toFixed(0)} | ${r.p50} | ${r.cpuMs.toFixed(3)} | ${r.callsPerRequest.toFixed(4)} |`),
].join('\n');
console.log(section);
if (!quick) writeBenchmarkSection('rate-limiter', section);
