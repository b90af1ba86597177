#!/usr/bin/env node
// `npm run bench:stack [-- --quick]` — the whole distributed stack over HTTP (gateway → NATS →
// service → PostgreSQL, each app its own process, as an operator runs them), every figure beside a raw
// baseline measured in the same run on the same data:
//   - ingest: call events POSTed in batches (4 posters) until every conversation is listed, against a raw
//     batched INSERT of the very read-model rows the projection wrote (same table definition, same indexes); then
//     as many calls published straight onto CALL_EVENTS (no gateway), in a second account;
//   - list shapes with 10 concurrent clients (autocannon) against the same page + exact-count pair on an
//     ideal, hand-indexed copy of the rows through `pg` (10 concurrent clients);
//   - fixed cost: GET /v1/agents/{id} against the primary-key lookup with `pg`; GET /v1/api-keys; GET /health;
//   - replicas: the list shapes again with 2 conversations-service replicas, then 2 gateways as well,
//     with CPU time per request of each process;
//   - memory (resident size of each process, idle and after the lists) and start-up time.
// The rate limiter is on, the accounts on a plan whose budgets the load never reaches (BENCH_RATE_LIMITS=false: off).
// `--quick` (a few thousand conversations, 2 s per case; CI runs it) only proves the harness works.
// Needs `npm run build`, PostgreSQL and NATS (BENCH_DATABASE_URL, BENCH_NATS_URL: the local servers).
// BENCH_EXISTING_DATABASE=<name>: run on a database that already holds conversations (one kept by
// `BENCH_KEEP=1 npm run bench:list`, e.g. ten million) instead of a fresh one: the bench's accounts are new, its
// scratch schemas are dropped at the end and the database is kept. With BENCH_ONLY=ingest it measures the ingest
// into tables of that size.
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { startArchitectureFloor } from './architecture-floor/start.mjs';
import { apiCaller, existingDatabase, freshDatabase, importBuilt, startBuiltApp, writeBenchmarkSection } from './support.mjs';

const QUICK = process.argv.includes('--quick');
// BENCH_ONLY=ingest (or BENCH_INGEST_ONLY=1): the ingest over HTTP, its raw baseline and the ingest straight onto
// JetStream only, nothing written to BENCHMARKS.md; BENCH_ONLY=ingest-http or ingest-direct: one path alone (with
// BENCH_CPU_PROF, profiles of that path alone; the raw baseline is then over the rows that path wrote).
// BENCH_ONLY=fixed: the fixed-cost requests alone on the small account (no ingest, no lists), after a warm-up, with
// the CPU each layer spends per request (each app, nats-server, the bench database's PostgreSQL sessions, this
// process as the load generator) and each case's time window on the monotonic clock CPU profiles use (µs), printed
// as JSON; nothing written to BENCHMARKS.md. BENCH_ONLY=fixed-agent: GET /v1/agents/{id} alone (for its profiles).
const RATE_LIMITS_ON = !/^(0|false|no)$/i.test(process.env.BENCH_RATE_LIMITS ?? 'true');
const ONLY = (process.env.BENCH_ONLY ?? (/^(1|true)$/i.test(process.env.BENCH_INGEST_ONLY ?? '') ? 'ingest' : '')).toLowerCase();
if (!['', 'ingest', 'ingest-http', 'ingest-direct', 'fixed', 'fixed-agent'].includes(ONLY)) throw new Error(`BENCH_ONLY: ingest, ingest-http, ingest-direct, fixed or fixed-agent, not ${ONLY}`);
const FIXED_ONLY = ONLY.startsWith('fixed');
const INGEST_ONLY = ONLY !== '' && !FIXED_ONLY;
const INGEST_HTTP = ONLY !== 'ingest-direct';
const INGEST_DIRECT = ONLY !== 'ingest-http';
const INGEST_DONE = Symbol('ingest done');
const FIXED_DONE = Symbol('fixed cost done');
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? (QUICK ? 3_000 : 20_000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 8));
const CONNECTIONS = 10;
const BATCH = 500;
const POSTERS = 4;
/** Publishes in flight per poster on the direct JetStream path: what the gateway keeps in flight per request. */
const DIRECT_IN_FLIGHT = 64;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const { generator, sims, contracts } = await importBuilt({
  generator: 'tools/call-generator/dist/index.js', sims: 'tools/platform-simulators/dist/index.js', contracts: 'libs/contracts/dist/index.js',
});
const { accountCallEventSubject, namespacedSubject } = contracts;
const FLOOR_NOTE = '_Floor_: the same request through node:http → one NATS request → a bare responder sending the raw baseline\'s statements through `pg` → the rows\' JSON back ([bench/architecture-floor/](../architecture-floor/)), two processes like the gateway and a service, on the same nats-server and database, under the same load. No authentication, rate limiter, validation, envelope, tenant check or log: what the design\'s one hop costs before any of our code runs. What the floor adds to the raw statement no code of ours can take away.';
const log = (m) => process.stderr.write(`[bench:stack] ${m}\n`);
const round = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

// ---------- processes ----------

async function freePort() {
  const server = createServer();
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

const TICKS_PER_SECOND = 100; // Linux USER_HZ
/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
/** The local nats-server the bench talks to (the first found), for its CPU time; undefined if not on this machine. */
function findNatsServer() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'nats-server') return Number(entry);
    } catch {
      // a process that ended meanwhile
    }
  }
  return undefined;
}
function residentMiB(pid) {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

// ---------- load generators ----------

/** How long each fixed-cost route is run, unmeasured, before it is measured. */
const WARM_UP_SECONDS = 2;

/** autocannon against the gateway(s) for `seconds`: `targets` share the connections. */
async function hammer(urls, token, seconds = SECONDS) {
  const share = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const results = await Promise.all(urls.map((url) => autocannon({ url, connections: share, duration: seconds, headers: { authorization: `Bearer ${token}` } })));
  const requests = results.reduce((n, r) => n + r.requests.total, 0);
  const bad = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
  if (bad > 0) throw new Error(`${urls[0]}: ${bad} of ${requests} answers were not 2xx`);
  return { p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)), perSecond: requests / seconds, requests };
}

/** `work` in CONNECTIONS concurrent loops on a pool of as many connections, for SECONDS. */
async function rawLoop(pool, work) {
  const samples = [];
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await work();
      samples.push(performance.now() - t0);
    }
  }));
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.ceil(samples.length * 0.99) - 1], perSecond: samples.length / SECONDS, requests: samples.length };
}

// ---------- the run ----------

const database = process.env.BENCH_EXISTING_DATABASE ? existingDatabase(adminUrl, process.env.BENCH_EXISTING_DATABASE, ['bench_raw', 'bench_ideal', 'floor']) : await freshDatabase(adminUrl, 'stack');
// Agents are created on a voice platform: the bundled simulator plays it.
const platformKey = `sim_${randomBytes(8).toString('hex')}`;
const simulators = await sims.startSimulators({ apiKeys: [platformKey], webhookSecret: 'whsec_bench_secret_0000' });
const namespace = `bench${randomBytes(4).toString('hex')}`;
const adminToken = `adm_${randomBytes(12).toString('hex')}`;
const gatewayPort = await freePort();
const common = {
  DATABASE_URL: database.url, NATS_URL: natsUrl, NATS_NAMESPACE: namespace, ADMIN_TOKEN: adminToken,
  INTEGRATIONS_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'info', LOG_FORMAT: 'json', HOST: '127.0.0.1',
  // The limiter runs on every request, as for a paying customer, with budgets the load never reaches: the bench measures
  // what it costs, not its refusals (tested elsewhere). BENCH_RATE_LIMITS=false measures without it.
  RATE_LIMITS: RATE_LIMITS_ON ? 'true' : 'false',
  RATE_LIMIT_PLANS: JSON.stringify({ bench: Object.fromEntries(['reads', 'writes', 'call_events'].map((budget) => [budget, { per_second: 1_000_000, burst: 1_000_000 }])) }),
  ALLOW_PRIVATE_PLATFORM_URLS: 'true',
};
const processes = [];
/** The architecture's floor (bench/architecture-floor): started once the statements it answers with are known. */
let floor;
const db = new pg.Pool({ connectionString: database.url, max: CONNECTIONS + 2 });
// The database is dropped WITH (FORCE) at the end: an idle connection cut then is expected, not a failure.
db.on('error', () => undefined);
const report = { conversations: CONVERSATIONS, seconds: SECONDS, quick: QUICK, rateLimits: RATE_LIMITS_ON };
try {
  // First start on an empty database: each app runs its migrations.
  const agentsApp = await startBuiltApp('agents-service', 'agents-service', common);
  const conversationsApp = await startBuiltApp('conversations-service', 'conversations-service', common);
  // The whole stack (the gateway's /health checks every service, notifications-service included).
  const notificationsApp = await startBuiltApp('notifications-service', 'notifications-service', common);
  const gatewayApp = await startBuiltApp('api-gateway', 'api-gateway', { ...common, PORT: String(gatewayPort) });
  processes.push(agentsApp, conversationsApp, notificationsApp, gatewayApp);
  report.firstStartMs = Object.fromEntries(processes.map((p) => [p.label, p.startMs]));
  log(`apps started (${processes.map((p) => `${p.label} ${round(p.startMs, 0)} ms`).join(', ')})`);
  const base = `http://127.0.0.1:${gatewayPort}`;
  const call = apiCaller(base);

  /** A new account with a platform integration and 10 agents, once conversations-service knows the agents. */
  const benchAccount = async (name) => {
    const created = (await call('POST', '/v1/admin/accounts', adminToken, { name, plan: 'bench', agent_limit: 20, voice_platforms: ['platform_a'] })).body.data;
    const integration = await call('PUT', '/v1/integrations/platform_a', created.api_key, { api_key: platformKey, webhook_secret: 'whsec_bench_secret_0000', base_url: simulators.urls.platformA });
    if (integration.status !== 200) throw new Error(`integration: ${integration.status} ${JSON.stringify(integration.body)}`);
    const agents = [];
    for (let i = 0; i < 10; i++) {
      const agent = await call('POST', '/v1/agents', created.api_key, { name: `${name} agent ${i}`, voice_platform: 'platform_a' });
      if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
      agents.push(agent.body.data.id);
    }
    log(`${name}: ${agents.length} agents created`);
    // The agents must be known to conversations-service before their calls (else the events wait, parked).
    for (const deadline = Date.now() + 30_000; ; ) {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM conversations.agents WHERE account_id = $1', [created.id]);
      if (rows[0].n === agents.length) break;
      if (Date.now() > deadline) throw new Error('agents never reached conversations-service');
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`${name}: agents known to conversations-service`);
    return { account: created, key: created.api_key, agentIds: agents };
  };
  /** CPU seconds so far of each process given (the apps unless said) and of the PostgreSQL sessions on the bench database (their sum). */
  const ingestCpu = async (measured = processes) => {
    const cpu = Object.fromEntries(measured.map((p) => [p.label, cpuSeconds(p.pid)]));
    const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    cpu.postgres = rows.reduce((sum, { pid }) => {
      try {
        return sum + cpuSeconds(pid);
      } catch {
        return sum; // a session that ended meanwhile
      }
    }, 0);
    return cpu;
  };
  /** Call events straight onto CALL_EVENTS, as the gateway publishes them (account subject, de-duplication id), no HTTP. */
  const directIngest = async (direct) => {
    const directCalls = generator.generateCalls({ count: CONVERSATIONS, seed: 13, agentIds: direct.agentIds, idPrefix: 'direct', spanDays: 60 });
    const nc = await connect({ servers: natsUrl });
    const js = jetstream(nc);
    try {
      return await measureIngest(directCalls, listedThroughApi(direct.key), async (batch) => {
        let next = 0;
        await Promise.all(Array.from({ length: Math.min(DIRECT_IN_FLIGHT, batch.length) }, async () => {
          while (next < batch.length) {
            const event = batch[next++];
            await js.publish(namespacedSubject(namespace, accountCallEventSubject(direct.account.id, event.type)), JSON.stringify(event), { msgID: `${direct.account.id}:${event.id}` });
          }
        }));
      });
    } finally {
      await nc.close();
    }
  };
  /** The account's listed total as the API answers it; -1 for a list that failed (a loaded machine's database refusing a connection: asked again at the next poll). */
  const listedThroughApi = (token) => async () => {
    const page = await call('GET', '/v1/conversations?per_page=1', token).catch(() => undefined);
    return page?.status === 200 ? page.body.meta.total : -1;
  };
  /**
   * Ingests the calls' events in batches of BATCH (POSTERS at once, `publish(batch)` resolving once the batch is
   * accepted) until every conversation is listed; lag: from a batch's acceptance to its conversations in the list's total.
   */
  const measureIngest = async (ingestCalls, listedTotal, publish, measured = processes) => {
    const events = ingestCalls.flatMap((c) => c.events);
    const startedBy = []; // per batch: how many conversations have started up to and including it
    const seen = new Set();
    const batches = [];
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH);
      for (const e of batch) seen.add(e.conversation_id);
      batches.push(batch);
      startedBy.push(seen.size);
    }
    const ackedAt = new Array(batches.length);
    const cpuBefore = await ingestCpu(measured);
    const ingestStart = performance.now();
    let next = 0;
    const posting = Promise.all(Array.from({ length: POSTERS }, async () => {
      for (let b = next++; b < batches.length; b = next++) {
        await publish(batches[b]).catch((err) => { throw new Error(`batch ${b}: ${err.message}`); });
        ackedAt[b] = performance.now();
      }
    }));
    // Watch the listed total: when did it first include each batch's conversations?
    const listedAt = new Array(batches.length);
    let watching = true;
    const watcher = (async () => {
      let b = 0;
      while (watching) {
        const total = await listedTotal();
        const now = performance.now();
        while (b < batches.length && ackedAt[b] !== undefined && total >= startedBy[b]) listedAt[b++] = now;
        if (total >= ingestCalls.length) return now;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await posting;
    const acceptedMs = performance.now() - ingestStart;
    let giveUp;
    const listedMs = (await Promise.race([watcher, new Promise((_, fail) => { giveUp = setTimeout(() => fail(new Error('not all listed within 5 min')), 300_000); })])) - ingestStart;
    clearTimeout(giveUp); // a pending timer would keep the bench alive for its 5 minutes after the report
    watching = false;
    const cpuAfter = await ingestCpu(measured);
    // CPU µs per event of each process (PostgreSQL: the bench database's sessions), from the first batch to all listed.
    const cpuUsPerEvent = Object.fromEntries(Object.entries(cpuAfter).map(([label, seconds]) => [label, Math.round(((seconds - (cpuBefore[label] ?? 0)) * 1e6) / events.length)]));
    const lags = listedAt.map((t, b) => t - ackedAt[b]).filter(Number.isFinite).sort((a, b) => a - b);
    return {
      cpuUsPerEvent,
      events: events.length, acceptedPerSecond: events.length / (acceptedMs / 1000), conversationsPerSecond: ingestCalls.length / (listedMs / 1000),
      lagP50: lags[Math.floor(lags.length / 2)], lagP99: lags[Math.ceil(lags.length * 0.99) - 1],
    };
  };

  const { account, key, agentIds } = await benchAccount('Bench');
  await new Promise((r) => setTimeout(r, 1_000));
  report.idleMiB = Object.fromEntries(processes.map((p) => [p.label, residentMiB(p.pid)]));

  // ---- the architecture's floor ----
  // node:http → one NATS request → a bare responder → the raw baseline's statements → the rows' JSON back: what any
  // gateway → bus → service → PostgreSQL design pays per request on this machine before any of our code runs.
  const AGENT_BY_KEY = 'SELECT * FROM agents.agents WHERE id = $1 AND account_id = $2';
  const startFloor = (shapes, ingestAccountId) => startArchitectureFloor({ natsUrl, databaseUrl: database.url, shapes, ingestAccountId, agent: { sql: AGENT_BY_KEY, params: [agentIds[0], account.id] } });
  /** The floor under the same load as the stack (after the same warm-up), with the CPU its two processes spent per request. */
  const onFloor = async (path) => {
    await hammer([`${floor.url}${path}`], key, WARM_UP_SECONDS);
    const before = floor.processes.map((p) => cpuSeconds(p.pid));
    const result = await hammer([`${floor.url}${path}`], key);
    const cpuUs = Object.fromEntries(floor.processes.map((p, i) => [p.label, ((cpuSeconds(p.pid) - before[i]) * 1e6) / result.requests]));
    return { ...result, cpuUs };
  };

  /**
   * The same calls through the floor (POST /events → JetStream → a bare consumer appending each batch's events and
   * folding them into read-model rows, one transaction a batch), measured as the stack's ingest is: posted the same way,
   * until all are in the floor's read model, with the CPU µs per event of its two processes and of PostgreSQL.
   */
  const floorIngest = async (ingestCalls) => {
    const ingestFloor = await startFloor({}, account.id);
    const listedOnFloor = async () => {
      if (ingestFloor.processes.some((p) => p.exited)) throw new Error('floor ingest: a floor process exited');
      const { rows: [{ n }] } = await db.query('SELECT count(*)::int AS n FROM floor.conversations WHERE account_id = $1', [account.id]);
      return n;
    };
    try {
      return await measureIngest(ingestCalls, listedOnFloor, async (batch) => {
        const res = await fetch(`${ingestFloor.url}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events: batch }) });
        if (res.status !== 202) throw new Error(`floor ingest: ${res.status}`);
      }, ingestFloor.processes);
    } finally {
      await ingestFloor.stop();
    }
  };

  // ---- fixed cost (measured after the lists in a full run; alone with BENCH_ONLY=fixed) ----
  const natsServerPid = findNatsServer();
  /** CPU seconds so far of each layer: the apps, nats-server, the given PostgreSQL sessions, this process (autocannon's load). */
  /** CPU seconds of each PostgreSQL session given that is still there (a session that ended is left out of both reads). */
  const sessionsCpu = (pids) => new Map(pids.flatMap((pid) => { try { return [[pid, cpuSeconds(pid)]]; } catch { return []; } }));
  const layerCpu = (postgresPids) => ({
    ...Object.fromEntries(processes.map((p) => [p.label, cpuSeconds(p.pid)])),
    ...(natsServerPid ? { 'nats-server': cpuSeconds(natsServerPid) } : {}),
    postgres: sessionsCpu(postgresPids),
    'load generator': (({ user, system }) => (user + system) / 1e6)(process.cpuUsage()),
  });
  const sessions = async () => (await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
  const fixedCosts = async () => {
    report.fixed = [];
    // What each layer spends with no request at all (pollers, timers, other users of a shared nats-server), per second:
    // the per-layer figures below come with this share of their window taken off as well.
    const idleSeconds = Math.min(SECONDS, 4);
    const idlePids = await sessions();
    const idleBefore = layerCpu(idlePids);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleAfter = layerCpu(idlePids);
    const idlePostgres = [...idleAfter.postgres].reduce((sum, [pid, seconds]) => sum + seconds - (idleBefore.postgres.get(pid) ?? seconds), 0);
    report.idleCpuPerSecond = Object.fromEntries(Object.keys(idleAfter).map((k) => [k, (k === 'postgres' ? idlePostgres : idleAfter[k] - idleBefore[k]) / idleSeconds]));
    const fixed = async (name, path, rawWork, floorPath) => {
      // Warmed up like any measured route: in a full run the lists before it never ran this route's code in the
      // service that answers it (agents-service sits idle during the lists), so its first seconds would be the JIT's.
      await hammer([`${base}${path}`], key, WARM_UP_SECONDS);
      const postgresPids = await sessions();
      const before = layerCpu(postgresPids);
      const window = [monotonicUs()];
      const service = await hammer([`${base}${path}`], key);
      window.push(monotonicUs());
      const after = layerCpu(postgresPids);
      const postgresUsed = [...after.postgres].reduce((sum, [pid, seconds]) => sum + seconds - (before.postgres.get(pid) ?? seconds), 0);
      // µs of CPU per request; ms in `cpu`, as the other tables show it.
      const layersUs = Object.fromEntries(Object.keys(after).map((k) => [k, ((k === 'postgres' ? postgresUsed : after[k] - before[k]) * 1e6) / service.requests]));
      const seconds = (window[1] - window[0]) / 1e6;
      const beyondIdleUs = Object.fromEntries(Object.entries(layersUs).map(([k, us]) => [k, us - ((report.idleCpuPerSecond[k] ?? 0) * seconds * 1e6) / service.requests]));
      const cpu = Object.fromEntries(processes.map((p) => [p.label, layersUs[p.label] / 1000]));
      const raw = rawWork ? await rawLoop(db, rawWork) : undefined;
      const floorRun = floorPath ? await onFloor(floorPath) : undefined;
      report.fixed.push({ name, service, raw, floor: floorRun, cpu, layersUs, beyondIdleUs, window });
      log(`${name}: ${round(service.perSecond, 0)} req/s${raw ? ` vs raw ${round(raw.perSecond, 0)}/s (${round(service.perSecond / raw.perSecond, 2)}×)` : ''}` +
        `${floorRun ? `, floor ${round(floorRun.perSecond, 0)}/s (${round(floorRun.perSecond / raw.perSecond, 2)}× raw)` : ''}; CPU µs per request: ${Object.entries(layersUs).map(([k, v]) => `${k} ${round(v, 0)}`).join(', ')}`);
    };
    floor ??= await startFloor({});
    await fixed(`GET /v1/agents/{id}`, `/v1/agents/${agentIds[0]}`, () => db.query(AGENT_BY_KEY, [agentIds[0], account.id]), '/agent');
    if (ONLY === 'fixed-agent') return;
    await fixed('GET /v1/api-keys (gateway only)', '/v1/api-keys', () => db.query('SELECT id, name, prefix, scopes, created_at, revoked_at, last_used_at FROM gateway.api_keys WHERE account_id = $1 ORDER BY created_at, id LIMIT 25', [account.id]));
    await fixed('GET /health', '/health');
  };
  if (FIXED_ONLY) {
    // A full run reaches these requests after the lists, its code warm: warm it up the same way.
    await hammer([`${base}/v1/agents/${agentIds[0]}`], key);
    await fixedCosts();
    throw FIXED_DONE;
  }

  // ---- ingest ----
  const calls = generator.generateCalls({ count: CONVERSATIONS, seed: 12, agentIds, idPrefix: 'bench', spanDays: 60 });
  // One call in a hundred mentions a warranty: the rare word of the search shape.
  calls.forEach((c, i) => {
    if (i % 100 !== 0) return;
    for (const e of c.events) if (e.type === 'call.ended' && e.data.summary) e.data.summary += ' Warranty claim noted.';
  });
  if (INGEST_HTTP) {
    report.ingest = await measureIngest(calls, listedThroughApi(key), async (batch) => {
      const res = await call('POST', '/v1/call-events', key, { events: batch });
      if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    });
  } else {
    report.ingestDirect = await directIngest({ account, key, agentIds });
    report.ingest = {};
  }
  // Raw: the very rows the projection wrote, batched INSERTs (BATCH rows each, POSTERS in parallel) into a table
  // of the same definition and indexes.
  // What autovacuum does for any real deployment (this machine's PostgreSQL runs with autovacuum off): without it,
  // index-only scans visit the heap and the planner has no statistics for the service's tables.
  const { rows: [{ autovacuum }] } = await db.query('SHOW autovacuum');
  report.autovacuum = autovacuum;
  for (const { table } of (await db.query(`SELECT schemaname || '.' || tablename AS table FROM pg_tables WHERE schemaname IN ('conversations', 'agents', 'gateway')`)).rows) {
    await db.query(`VACUUM (ANALYZE) ${table}`);
  }
  await db.query('CREATE SCHEMA bench_raw');
  await db.query('CREATE TABLE bench_raw.conversations (LIKE conversations.conversations INCLUDING ALL)');
  const { rows: written } = await db.query('SELECT * FROM conversations.conversations WHERE account_id = $1', [account.id]);
  const rawStart = performance.now();
  let rawNext = 0;
  await Promise.all(Array.from({ length: POSTERS }, async () => {
    for (let i = rawNext; i < written.length; i = rawNext) {
      rawNext += BATCH;
      await db.query('INSERT INTO bench_raw.conversations SELECT * FROM json_populate_recordset(null::bench_raw.conversations, $1)', [JSON.stringify(written.slice(i, i + BATCH))]);
    }
  }));
  report.ingest.rawRowsPerSecond = written.length / ((performance.now() - rawStart) / 1000);
  log(`ingest: raw insert ${round(report.ingest.rawRowsPerSecond, 0)} rows/s`);
  if (INGEST_HTTP) {
    report.ingestFloor = await floorIngest(calls);
    log(`ingest through the architecture's floor: ${round(report.ingestFloor.conversationsPerSecond, 0)} conversations/s listed (${ratio(report.ingestFloor.conversationsPerSecond, report.ingest.rawRowsPerSecond)}× raw); CPU per event: ${cpuPerEvent(report.ingestFloor)}`);
  }
  const logIngest = (label, r) => log(`${label}: ${round(r.conversationsPerSecond, 0)} conversations/s listed (${ratio(r.conversationsPerSecond, report.ingest.rawRowsPerSecond)}× raw), lag p50 ${round(r.lagP50, 0)} ms, p99 ${round(r.lagP99, 0)} ms`);
  if (INGEST_HTTP) logIngest('ingest over HTTP', report.ingest);
  if (INGEST_ONLY) {
    // A second account, so the first's rows stay as the HTTP ingest left them.
    if (INGEST_HTTP && INGEST_DIRECT) report.ingestDirect = await directIngest(await benchAccount('Bench direct'));
    if (INGEST_DIRECT) logIngest('ingest straight onto JetStream', report.ingestDirect);
    throw INGEST_DONE;
  }

  // ---- list shapes ----
  // The ideal table: the same rows, one hand-made index per shape.
  await db.query('CREATE SCHEMA bench_ideal');
  await db.query('CREATE TABLE bench_ideal.c AS SELECT * FROM conversations.conversations WHERE account_id = $1', [account.id]);
  for (const columns of ['account_id, start_time DESC, id DESC', 'account_id, agent_id, status, start_time DESC, id DESC', 'account_id, caller_number, start_time DESC, id DESC',
    'account_id, duration, start_time DESC', 'account_id, sentiment_rank DESC NULLS LAST, start_time DESC, id DESC']) {
    await db.query(`CREATE INDEX ON bench_ideal.c (${columns})`);
  }
  await db.query('CREATE INDEX ON bench_ideal.c USING gin (topics_lower)');
  await db.query('CREATE INDEX ON bench_ideal.c USING gin (search_text gin_trgm_ops)').catch(async () => {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await db.query('CREATE INDEX ON bench_ideal.c USING gin (search_text gin_trgm_ops)');
  });
  await db.query('VACUUM ANALYZE bench_ideal.c');
  const { rows: [span] } = await db.query('SELECT min(start_time) AS lo, max(start_time) AS hi FROM bench_ideal.c');
  const weekFrom = new Date((span.lo.getTime() + span.hi.getTime()) / 2);
  const weekTo = new Date(weekFrom.getTime() + 7 * 86_400_000);
  const { rows: [{ caller_number: caller }] } = await db.query('SELECT caller_number FROM bench_ideal.c WHERE caller_number IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
  const { rows: [{ topic }] } = await db.query('SELECT t AS topic FROM bench_ideal.c, unnest(topics_lower) t GROUP BY t ORDER BY count(*) DESC LIMIT 1');
  const deepPage = Math.max(2, Math.floor(CONVERSATIONS / 25 / 2));
  const LIST_COLUMNS = 'id, agent_id, caller_number, status, start_time, end_time, duration, sentiment, outcome, topics, has_recording, has_transcript, summary, created_at';
  const byTime = 'ORDER BY start_time DESC, id DESC';
  const shapes = [
    ['default', {}, 'TRUE', [], byTime],
    ['agent_id + status', { agent_id: agentIds[3], status: 'completed' }, 'agent_id = $2 AND status = $3', [agentIds[3], 'completed'], byTime],
    ['date range (one week)', { start_date: weekFrom.toISOString(), end_date: weekTo.toISOString() }, 'start_time >= $2 AND start_time <= $3', [weekFrom, weekTo], byTime],
    ['duration range (60–120 s)', { min_duration: '60', max_duration: '120' }, 'duration >= 60 AND duration <= 120', [], byTime],
    ['caller', { caller }, 'caller_number = $2', [caller], byTime],
    ['topic', { topic }, 'topics_lower @> ARRAY[$2::text]', [topic], byTime],
    ['search, rare word', { search: 'warranty' }, `search_text LIKE '%warranty%'`, [], byTime],
    ['search, common word', { search: 'you' }, `search_text LIKE '%you%'`, [], byTime],
    ['sort by sentiment', { sort_by: 'sentiment', sort_order: 'desc' }, 'TRUE', [], 'ORDER BY sentiment_rank DESC NULLS LAST, start_time DESC, id DESC'],
    [`deep page (page ${deepPage})`, { page: String(deepPage) }, 'TRUE', [], byTime, (deepPage - 1) * 25],
  ];
  const listUrl = (gateway, query) => `${gateway}/v1/conversations?${new URLSearchParams(query)}`;
  const cpuOf = () => processes.map((p) => ({ label: p.label, cpu: cpuSeconds(p.pid) }));
  const cpuPerRequest = (before, requests) => Object.fromEntries(processes.map((p) => [p.label, ((cpuSeconds(p.pid) - before.find((b) => b.label === p.label).cpu) * 1000) / requests]));
  const statements = (where, params, order, offset) => ({
    page: `SELECT ${LIST_COLUMNS} FROM bench_ideal.c WHERE account_id = $1 AND ${where} ${order} LIMIT 25 OFFSET ${offset}`,
    count: `SELECT count(*) FROM bench_ideal.c WHERE account_id = $1 AND ${where}`,
    params: [account.id, ...params],
  });
  floor = await startFloor(Object.fromEntries(shapes.map(([name, , where, params, order, offset = 0]) => [name, statements(where, params, order, offset)])));
  report.lists = [];
  for (const [name, query, where, params, order, offset = 0] of shapes) {
    const before = cpuOf();
    const window = [monotonicUs()];
    const service = await hammer([listUrl(base, query)], key);
    window.push(monotonicUs());
    const cpu = cpuPerRequest(before, service.requests);
    const sqlParams = [account.id, ...params];
    const { page, count: countSql } = statements(where, params, order, offset);
    const raw = await rawLoop(db, () => Promise.all([db.query(page, sqlParams), db.query(countSql, sqlParams)]));
    const floorRun = await onFloor(`/list?${new URLSearchParams({ shape: name })}`);
    const total = (await call('GET', `/v1/conversations?${new URLSearchParams(query)}`, key)).body.meta.total;
    const { rows: [{ count }] } = await db.query(`SELECT count(*)::int AS count FROM bench_ideal.c WHERE account_id = $1 AND ${where}`, sqlParams);
    report.lists.push({ name, query, service, raw, floor: floorRun, total, rawTotal: count, cpu });
    log(`${name}: p50 ${round(service.p50)} ms vs raw ${round(raw.p50)} ms (${round(service.p50 / raw.p50, 2)}×), floor ${round(floorRun.p50)} ms (${round(floorRun.p50 / raw.p50, 2)}× raw), total ${total} (raw ${count})` +
      // The profiles' window and request count, for bench/profile-layers.mjs.
      (process.env.BENCH_CPU_PROF ? `; window µs ${window.join(' ')}, ${service.requests} requests` : ''));
  }

  // ---- fixed cost ----
  await fixedCosts();
  report.afterListsMiB = Object.fromEntries(processes.map((p) => [p.label, residentMiB(p.pid)]));

  // ---- replicas ----
  const replicaShapes = shapes.filter(([name]) => name === 'default' || name === 'agent_id + status');
  report.replicas = [];
  const replicaRun = async (setup, gateways) => {
    for (const [name, query] of replicaShapes) {
      const before = cpuOf();
      const service = await hammer(gateways.map((g) => listUrl(g, query)), key);
      report.replicas.push({ setup, name, service, cpu: cpuPerRequest(before, service.requests) });
      log(`${setup}, ${name}: ${round(service.perSecond, 0)} req/s, p50 ${round(service.p50)} ms`);
    }
  };
  for (const l of report.lists.filter((r) => replicaShapes.some(([n]) => n === r.name))) {
    report.replicas.push({ setup: '1 gateway, 1 conversations-service', name: l.name, service: l.service, cpu: l.cpu });
  }
  const secondConversations = await startBuiltApp('conversations-service', 'conversations-service #2', common);
  processes.push(secondConversations);
  await replicaRun('1 gateway, 2 conversations-service', [base]);
  const secondPort = await freePort();
  const secondGateway = await startBuiltApp('api-gateway', 'api-gateway #2', { ...common, PORT: String(secondPort) });
  processes.push(secondGateway);
  report.laterStartMs = { 'conversations-service': secondConversations.startMs, 'api-gateway': secondGateway.startMs };
  await replicaRun('2 gateways, 2 conversations-service', [base, `http://127.0.0.1:${secondPort}`]);

  // ---- ingest straight onto JetStream ----
  // Last, in a second account (the lists above measured the first alone), with one replica of each app again.
  await secondGateway.stop();
  await secondConversations.stop();
  processes.splice(processes.indexOf(secondGateway), 1);
  processes.splice(processes.indexOf(secondConversations), 1);
  report.ingestDirect = await directIngest(await benchAccount('Bench direct'));
  logIngest('ingest straight onto JetStream', report.ingestDirect);

  // ---- report ----
  const md = render(report);
  console.log(md);
  // The default size has its own sections; another size (e.g. BENCH_CONVERSATIONS=300000) gets them beside it:
  // the headline figures in BENCHMARKS.md, every table in bench/results/stack.md.
  if (!QUICK) {
    const marker = CONVERSATIONS === 20_000 ? 'stack' : `stack-${CONVERSATIONS}`;
    writeBenchmarkSection(marker, renderHeadline(report), 'BENCHMARKS.md');
    writeBenchmarkSection(marker, md, 'bench/results/stack.md');
  }
} catch (err) {
  if (err === FIXED_DONE) {
    console.log(JSON.stringify({
      seconds: SECONDS, loadAverage: os.loadavg(),
      idleCpuMsPerSecond: Object.fromEntries(Object.entries(report.idleCpuPerSecond).map(([k, v]) => [k, Math.round(v * 1000)])),
      fixed: report.fixed.map((f) => ({
        name: f.name, perSecond: Math.round(f.service.perSecond), requests: f.service.requests, p50: f.service.p50,
        rawPerSecond: f.raw && Math.round(f.raw.perSecond), ratio: f.raw && round(f.service.perSecond / f.raw.perSecond, 3),
        cpuUsPerRequest: Object.fromEntries(Object.entries(f.layersUs).map(([k, v]) => [k, Math.round(v)])),
        cpuUsPerRequestBeyondIdle: Object.fromEntries(Object.entries(f.beyondIdleUs).map(([k, v]) => [k, Math.round(v)])), windowUs: f.window,
      })),
    }, null, 1));
  } else if (err === INGEST_DONE) {
    const { rawRowsPerSecond } = report.ingest;
    const withRatio = (r) => r && { ...r, ratio: round(r.conversationsPerSecond / rawRowsPerSecond, 3) };
    console.log(JSON.stringify({ rawRowsPerSecond, http: withRatio(INGEST_HTTP && report.ingest), direct: withRatio(report.ingestDirect), floor: withRatio(report.ingestFloor) }));
  } else {
    console.error('[bench:stack] failed:', err);
    process.exitCode = 1;
  }
} finally {
  await floor?.stop().catch(() => undefined);
  for (const p of processes.reverse()) await p.stop().catch(() => undefined);
  await db.end().catch(() => undefined);
  await simulators.stop().catch(() => undefined);
  await database.drop();
}

/** "api-gateway 120 µs, …, postgres 900 µs": CPU per ingested event of each process that used any. */
function cpuPerEvent(ingest) {
  return Object.entries(ingest.cpuUsPerEvent ?? {}).filter(([, us]) => us > 0).map(([label, us]) => `${label} ${us} µs`).join(', ');
}

function ratio(a, b) {
  return round(a / b, 2);
}

function headlineOf(r) {
  const worst = r.lists.reduce((w, l) => (l.service.p50 / l.raw.p50 > w.service.p50 / w.raw.p50 ? l : w), r.lists[0]);
  const agent = r.fixed[0];
  const floorWorst = r.lists.reduce((w, l) => (l.floor.p50 / l.raw.p50 > w.floor.p50 / w.raw.p50 ? l : w), r.lists[0]);
  return `**Lists: worst shape ${ratio(worst.service.p50, worst.raw.p50)}× the ideal table's p50 (${worst.name}); GET /v1/agents/{id} ${ratio(agent.service.perSecond, agent.raw.perSecond)}× the raw primary-key lookup's throughput; ingest ${ratio(r.ingest.conversationsPerSecond, r.ingest.rawRowsPerSecond)}× the raw batched insert.** ` +
    `The architecture's floor (the same requests through a bare HTTP server, one NATS hop and a bare responder) in the same run: lists up to ${ratio(floorWorst.floor.p50, floorWorst.raw.p50)}× the ideal table (${floorWorst.name}), GET by id ${ratio(agent.floor.perSecond, agent.raw.perSecond)}× the raw lookup, ingest ${ratio(r.ingestFloor.conversationsPerSecond, r.ingest.rawRowsPerSecond)}× the raw insert.`;
}

/** BENCHMARKS.md's part: each figure beside its raw baseline; CPU, replicas, memory and start-up are in bench/results/stack.md. */
function renderHeadline(r) {
  const size = r.conversations.toLocaleString('en-US');
  const anchor = `the-whole-stack-over-http-${r.conversations}-conversations`;
  return [
    `### ${size} conversations`,
    '',
    headlineOf(r),
    '',
    `Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}; ${r.seconds} s per case. Ingest of ${r.ingest.events.toLocaleString('en-US')} call events: ${round(r.ingest.conversationsPerSecond, 0)} conversations/s listed against ${round(r.ingest.rawRowsPerSecond, 0)} rows/s for the raw batched INSERT (${ratio(r.ingest.conversationsPerSecond, r.ingest.rawRowsPerSecond)}×); lag p50 ${round(r.ingest.lagP50, 0)} ms, p99 ${round(r.ingest.lagP99, 0)} ms; straight onto JetStream (no HTTP) ${round(r.ingestDirect.conversationsPerSecond, 0)} conversations/s (${ratio(r.ingestDirect.conversationsPerSecond, r.ingest.rawRowsPerSecond)}×), lag p99 ${round(r.ingestDirect.lagP99, 0)} ms. CPU per request, replicas, memory and start-up: [bench/results/stack.md](bench/results/stack.md#${anchor}).`,
    '',
    '| shape (page + exact total) | service p50 ms | raw p50 ms | p50 ratio | floor p50 ms | floor / raw | service / floor | service req/s | raw req/s | total |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.lists.map((l) => `| ${l.name} | ${round(l.service.p50)} | ${round(l.raw.p50)} | ${ratio(l.service.p50, l.raw.p50)} | ${round(l.floor.p50)} | ${ratio(l.floor.p50, l.raw.p50)} | ${ratio(l.service.p50, l.floor.p50)} | ${round(l.service.perSecond, 0)} | ${round(l.raw.perSecond, 0)} | ${l.total} |`),
    '',
    '| request (fixed cost) | service req/s | raw req/s | ratio | floor req/s | floor / raw | p50 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.fixed.map((f) => `| ${f.name} | ${round(f.service.perSecond, 0)} | ${f.raw ? round(f.raw.perSecond, 0) : '–'} | ${f.raw ? ratio(f.service.perSecond, f.raw.perSecond) : '–'} | ${f.floor ? round(f.floor.perSecond, 0) : '–'} | ${f.floor ? ratio(f.floor.perSecond, f.raw.perSecond) : '–'} | ${round(f.service.p50)} |`),
  ].join('\n');
}

/** "gateway 0.12, service 0.20": the floor's CPU ms per request, per process. */
function floorCpuCell(run) {
  return Object.entries(run.cpuUs).map(([k, us]) => `${k.replace('floor ', '')} ${round(us / 1000, 2)}`).join(', ');
}

function render(r) {
  const cpuCell = (cpu) => Object.entries(cpu).filter(([, v]) => v > 0.005).map(([k, v]) => `${k.replace('-service', '')} ${round(v, 2)}`).join(', ');
  const lines = [
    `## The whole stack over HTTP (${r.conversations.toLocaleString('en-US')} conversations)`,
    '',
    headlineOf(r),
    '',
    `Command: \`npm run build && npm run bench:stack\` (env \`BENCH_CONVERSATIONS\`, \`BENCH_SECONDS\`; \`-- --quick\` for the CI smoke run). Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}.`,
    `Distributed mode: api-gateway, agents-service, conversations-service and notifications-service each their own process, over NATS and PostgreSQL on the same machine; autocannon with ${CONNECTIONS} connections for ${r.seconds} s per case, in the bench's process; baselines through \`pg\` with ${CONNECTIONS} concurrent clients in the same run. ${r.rateLimits ? 'Rate limiter on, the account on a plan whose budgets the load never reaches (it admits every request and refuses none)' : 'Rate limiter off (BENCH_RATE_LIMITS=false)'}. After the ingest, every table of the services is vacuumed and analyzed (what autovacuum does; it is ${r.autovacuum} on this server).`,
    '',
    '### Ingest',
    '',
    `${r.ingest.events.toLocaleString('en-US')} call events (${r.conversations.toLocaleString('en-US')} conversations) over \`POST /v1/call-events\`, batches of ${BATCH}, ${POSTERS} posters: accepted at ${round(r.ingest.acceptedPerSecond, 0)} events/s; **${round(r.ingest.conversationsPerSecond, 0)} conversations/s from the first POST to all listed**, against ${round(r.ingest.rawRowsPerSecond, 0)} rows/s for a raw batched INSERT of the same read-model rows (${ratio(r.ingest.conversationsPerSecond, r.ingest.rawRowsPerSecond)}×). Lag from a batch's 202 to its conversations in the list's total: p50 ${round(r.ingest.lagP50, 0)} ms, p99 ${round(r.ingest.lagP99, 0)} ms. CPU per event: ${cpuPerEvent(r.ingest)}.`,
    '',
    `The same calls through the architecture's floor (posted the same way to a bare HTTP server publishing each event onto a stream of its own, consumed by a bare service that appends each batch's events to an event table with the event store's constraints and folds them into a copy of the read model's table, one transaction a batch; [bench/architecture-floor/](../architecture-floor/)): **${round(r.ingestFloor.conversationsPerSecond, 0)} conversations/s** (${ratio(r.ingestFloor.conversationsPerSecond, r.ingest.rawRowsPerSecond)}× the raw insert). CPU per event: ${cpuPerEvent(r.ingestFloor)}.`,
    '',
    `The same number of calls published straight onto CALL_EVENTS (no HTTP, no gateway: the account's subject and de-duplication id the gateway sets, ${POSTERS} publishers of batches of ${BATCH} with ${DIRECT_IN_FLIGHT} publishes in flight each), in a second account after the lists: accepted at ${round(r.ingestDirect.acceptedPerSecond, 0)} events/s; **${round(r.ingestDirect.conversationsPerSecond, 0)} conversations/s to all listed** (${ratio(r.ingestDirect.conversationsPerSecond, r.ingest.rawRowsPerSecond)}× the raw insert above). Lag from a batch's last acknowledgement to its conversations listed: p50 ${round(r.ingestDirect.lagP50, 0)} ms, p99 ${round(r.ingestDirect.lagP99, 0)} ms. CPU per event: ${cpuPerEvent(r.ingestDirect)}.`,
    '',
    '### List shapes (page + exact total)',
    '',
    '| shape | service p50 ms | service p99 ms | service req/s | raw p50 ms | raw req/s | p50 ratio | floor p50 ms | floor req/s | floor / raw | total (raw) | CPU ms per request | floor CPU ms per request |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.lists.map((l) => `| ${l.name} | ${round(l.service.p50)} | ${round(l.service.p99)} | ${round(l.service.perSecond, 0)} | ${round(l.raw.p50)} | ${round(l.raw.perSecond, 0)} | ${ratio(l.service.p50, l.raw.p50)} | ${round(l.floor.p50)} | ${round(l.floor.perSecond, 0)} | ${ratio(l.floor.p50, l.raw.p50)} | ${l.total} (${l.rawTotal}) | ${cpuCell(l.cpu)} | ${floorCpuCell(l.floor)} |`),
    '',
    FLOOR_NOTE,
    '',
    '### Fixed cost of a request',
    '',
    '| request | service req/s | p50 ms | raw req/s | ratio | floor req/s | floor / raw | CPU ms per request | floor CPU ms per request |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...r.fixed.map((f) => `| ${f.name} | ${round(f.service.perSecond, 0)} | ${round(f.service.p50)} | ${f.raw ? round(f.raw.perSecond, 0) : '–'} | ${f.raw ? ratio(f.service.perSecond, f.raw.perSecond) : '–'} | ${f.floor ? round(f.floor.perSecond, 0) : '–'} | ${f.floor ? ratio(f.floor.perSecond, f.raw.perSecond) : '–'} | ${cpuCell(f.cpu)} | ${f.floor ? floorCpuCell(f.floor) : '–'} |`),
    '',
    '### Replicas',
    '',
    '| setup | shape | req/s | p50 ms | CPU ms per request |',
    '|---|---|---:|---:|---|',
    ...r.replicas.map((x) => `| ${x.setup} | ${x.name} | ${round(x.service.perSecond, 0)} | ${round(x.service.p50)} | ${cpuCell(x.cpu)} |`),
    '',
    '### Memory and start-up',
    '',
    '| process | resident MiB idle | after the lists | first start (migrations) ms | later start ms |',
    '|---|---:|---:|---:|---:|',
    ...Object.keys(r.idleMiB).map((k) => `| ${k} | ${round(r.idleMiB[k], 0)} | ${round(r.afterListsMiB[k], 0)} | ${round(r.firstStartMs[k], 0)} | ${r.laterStartMs[k] ? round(r.laterStartMs[k], 0) : '–'} |`),
  ];
  return lines.join('\n');
}
