#!/usr/bin/env node
// `npm run bench:outbound [-- --quick]` — outbound events: how fast conversation changes become signed webhooks.
// conversations-service and notifications-service as their own built processes over the local NATS (JetStream) and
// PostgreSQL; 10 endpoints of one account on loopback (each its own node:http server verifying every signature with
// `standardwebhooks`, every event type). Changes come through the real path: a call.started on CALL_EVENTS is
// recorded by conversations-service, its change leaves through the outbox on CONVERSATION_CHANGES, notifications-
// service records the conversation.started event with one delivery per endpoint and POSTs them, signed.
// - Throughput: BENCH_CHANGES changes published at once; deliveries answered 2xx per second over the 10 endpoints
//   (first publish → last 2xx). The baseline (same run, same receivers) is a raw loop of signed POSTs
//   (standardwebhooks, the body of a real delivery) at full speed, as many in flight as the service allows itself
//   (WEBHOOK_DELIVERY_CONCURRENCY), over Node's default keep-alive agent.
// - Latency: changes published at a steady rate (BENCH_RATE deliveries/s over the 10 endpoints); from the change's
//   commit (the conversation row's created_at, carried in the event's list item: the recording transaction's now())
//   to the receiver's 2xx.
// - Isolation: the same steady rate while one endpoint takes 15 s to answer every request (the service's deadline);
//   the other 9 endpoints' latency.
// `--quick` (a few hundred changes, short phases; writes nothing) only proves the harness works.
// Writes the figures into BENCHMARKS.md between the outbound-events markers. Needs `npm run build`.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { freshDatabase, importBuilt, ms, percentiles, startBuiltApp, writeBenchmarkSection } from './support.mjs';

const QUICK = process.argv.includes('--quick');
const ENDPOINTS = 10;
const CHANGES = Number(process.env.BENCH_CHANGES ?? (QUICK ? 200 : 1_500));
/** Deliveries per second over every endpoint during the latency phases (a change is one delivery per endpoint). */
const RATE = Number(process.env.BENCH_RATE ?? 500);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 3 : 20));
const RAW_SECONDS = QUICK ? 2 : 8;
const HANG_MS = 15_000;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const log = (m) => process.stderr.write(`[bench:outbound] ${m}\n`);
const loadAtStart = os.loadavg()[0];

const { kit, contracts, worker } = await importBuilt({
  kit: 'libs/service-kit/dist/index.js', contracts: 'libs/contracts/dist/index.js', worker: 'apps/notifications-service/dist/deliver-events/delivery.worker.js',
});
/** WEBHOOK_DELIVERY_CONCURRENCY (the service's default when unset): the raw loop keeps as many POSTs in flight. */
const CONCURRENCY = Number(process.env.WEBHOOK_DELIVERY_CONCURRENCY ?? worker.DEFAULT_DELIVERY_WORKER.concurrency);
const { agentEventSubject, callEventSubject, namespacedSubject } = contracts;

const ACCOUNT = 'acct_benchoutbound000000001';
const AGENT = 'agt_benchoutboundagent000001';
const namespace = `bench${randomBytes(4).toString('hex')}`;
const integrationsKey = randomBytes(32);
const database = await freshDatabase(adminUrl, 'outbound');
const db = new pg.Pool({ connectionString: database.url, max: 2 });
// The database is dropped WITH (FORCE) at the end: an idle connection cut then is expected, not a failure.
db.on('error', () => undefined);
const nc = await connect({ servers: natsUrl });
const js = jetstream(nc);
const receivers = [];
const processes = [];

/**
 * One endpoint on loopback: verifies every request's signature, answers 204 (or, while `hang` is set, 204 after
 * 15 s), and notes for each conversation event the time from the change's commit to its answer, per phase (the
 * conversation id's prefix).
 */
async function startReceiver(index) {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const receiver = {
    index, secret, hang: false, badSignatures: 0, raw: 0, duplicates: 0,
    seen: new Set(),
    /** phase → { latencies (ms), count, lastAt (epoch ms) } */
    phases: new Map(),
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifier.verify(body, req.headers);
      } catch {
        receiver.badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(204).end();
        if (req.url === '/raw') {
          receiver.raw++;
          return;
        }
        const event = JSON.parse(body);
        const conversation = event.data.conversation;
        if (!conversation) return;
        if (receiver.seen.has(conversation.id)) {
          receiver.duplicates++;
          return;
        }
        receiver.seen.add(conversation.id);
        const now = Date.now();
        const phase = conversation.id.split('-')[1];
        const at = receiver.phases.get(phase) ?? { latencies: [], fromRecorded: [], count: 0, lastAt: 0 };
        at.latencies.push(now - Date.parse(conversation.created_at));
        // The event's timestamp: when notifications-service recorded it (a conversation event carries no other).
        at.fromRecorded.push(now - Date.parse(event.timestamp));
        at.count++;
        at.lastAt = now;
        receiver.phases.set(phase, at);
        if (!receiver.body) receiver.body = body;
      };
      if (receiver.hang) setTimeout(answer, HANG_MS);
      else answer();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  receiver.url = `http://127.0.0.1:${server.address().port}`;
  receiver.close = () => new Promise((ok) => {
    server.closeAllConnections();
    server.close(ok);
  });
  receiver.phase = (phase) => receiver.phases.get(phase) ?? { latencies: [], fromRecorded: [], count: 0, lastAt: 0 };
  return receiver;
}

let published = 0;
/** One call.started on CALL_EVENTS: conversations-service records it and its change becomes a conversation.started. */
async function publishChange(phase) {
  const i = published++;
  const at = new Date().toISOString();
  const event = {
    id: `bench-call-started-${i}`, type: 'call.started', conversation_id: `conv-${phase}-${i}`, agent_id: AGENT, occurred_at: at,
    data: { caller_number: '+14155550123', start_time: at },
  };
  await js.publish(namespacedSubject(namespace, callEventSubject('call.started')), JSON.stringify(event), { msgID: event.id });
}

async function waitUntil(what, done, timeoutMs) {
  for (const deadline = Date.now() + timeoutMs; !(await done()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const TICKS_PER_SECOND = 100; // Linux USER_HZ
/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds used so far by the PostgreSQL sessions of one application (the server runs on this machine). */
async function sessionsCpuSeconds(applicationName) {
  const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [applicationName]);
  return rows.reduce((sum, { pid }) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum; // a session that ended meanwhile
    }
  }, 0);
}

const delivered = (phase, among = receivers) => among.reduce((n, r) => n + r.phase(phase).count, 0);

/** `changes` changes published at once; deliveries per second from the first publish to the last 2xx. */
async function burst(phase, changes) {
  const started = Date.now();
  for (let i = 0; i < changes; i++) await publishChange(phase);
  await waitUntil(`${phase}: ${changes * ENDPOINTS} deliveries`, () => delivered(phase) >= changes * ENDPOINTS, 300_000);
  const last = Math.max(...receivers.map((r) => r.phase(phase).lastAt));
  // Where the time went: when the last change was committed, and when its event was recorded.
  const [committed, recorded] = await Promise.all([
    db.query(`SELECT extract(epoch FROM max(created_at)) * 1000 AS at FROM conversations.conversations WHERE id LIKE $1`, [`conv-${phase}-%`]),
    db.query(`SELECT extract(epoch FROM max(created_at)) * 1000 AS at FROM notifications.events WHERE conversation_id LIKE $1`, [`conv-${phase}-%`]),
  ]);
  const after = (row) => (Number(row.rows[0].at) - started) / 1000;
  return {
    deliveries: changes * ENDPOINTS, perSecond: (changes * ENDPOINTS) / ((last - started) / 1000),
    seconds: (last - started) / 1000, lastCommitted: after(committed), lastRecorded: after(recorded),
  };
}

/** Changes at RATE / ENDPOINTS per second for STEADY_SECONDS; the latency at the endpoints in `measured`. */
async function steady(phase, measured) {
  const perSecond = RATE / ENDPOINTS;
  const total = Math.round(perSecond * STEADY_SECONDS);
  const started = performance.now();
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    while (sent < due) {
      await publishChange(phase);
      sent++;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const elapsed = (performance.now() - started) / 1000;
  await waitUntil(`${phase}: ${total * measured.length} deliveries`, () => delivered(phase, measured) >= total * measured.length, 120_000);
  const latencies = measured.flatMap((r) => r.phase(phase).latencies);
  const fromRecorded = measured.flatMap((r) => r.phase(phase).fromRecorded);
  return { changes: total, offered: (total * ENDPOINTS) / elapsed, latency: percentiles(latencies), fromRecorded: percentiles(fromRecorded) };
}

/** The baseline: signed POSTs of a real delivery's body to the same receivers, CONCURRENCY in flight, for RAW_SECONDS. */
async function rawLoop(body) {
  const signers = receivers.map((r) => new Webhook(r.secret));
  let next = 0;
  let sent = 0;
  const deadline = performance.now() + RAW_SECONDS * 1000;
  const post = (index) => {
    const id = `msg_raw_${sent}`;
    const timestamp = new Date();
    const headers = {
      'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signers[index].sign(id, timestamp, body),
    };
    return new Promise((ok, fail) => {
      const req = request(`${receivers[index].url}/raw`, { method: 'POST', headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? ok() : fail(new Error(`raw POST answered ${res.statusCode}`))));
      });
      req.on('error', fail);
      req.end(body);
    });
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline) {
      await post(next++ % receivers.length);
      sent++;
    }
  }));
  return { deliveries: sent, perSecond: sent / ((performance.now() - started) / 1000) };
}

try {
  const common = {
    DATABASE_URL: database.url, NATS_URL: natsUrl, NATS_NAMESPACE: namespace, INTEGRATIONS_KEY: integrationsKey.toString('base64'),
    LOG_LEVEL: 'info', LOG_FORMAT: 'json', ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  };
  processes.push(await startBuiltApp('conversations-service', 'conversations-service', common));
  processes.push(await startBuiltApp('notifications-service', 'notifications-service', common));
  const agent = {
    id: 'bench-outbound-agent', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
    agent: { agent_id: AGENT, account_id: ACCOUNT, name: 'Bench desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
  };
  await js.publish(namespacedSubject(namespace, agentEventSubject('AgentCreated')), JSON.stringify(agent), { msgID: agent.id });
  await waitUntil('the agent to reach conversations-service', async () => (await db.query('SELECT 1 FROM conversations.agents WHERE agent_id = $1', [AGENT])).rows.length > 0, 30_000);

  // The endpoints, registered as the endpoints RPC leaves them: enabled, every event type, the secret sealed.
  const box = new kit.SecretBox({ current: integrationsKey });
  for (let i = 0; i < ENDPOINTS; i++) {
    const receiver = await startReceiver(i);
    receivers.push(receiver);
    const endpointId = `we_${randomBytes(12).toString('hex')}`;
    await db.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at) VALUES ($1, $2, $3, true, $4, $5, now(), now())`,
      [endpointId, ACCOUNT, `${receiver.url}/in`, box.seal(receiver.secret, `${endpointId}/secret`), receiver.secret.slice(-4)],
    );
  }
  log(`${ENDPOINTS} endpoints on loopback, services started`);

  await burst('warmup', QUICK ? 20 : 100);
  // The raw loop before and after the service's burst, their mean the baseline: the machine is shared, and its
  // speed drifts within a run.
  const rawBefore = await rawLoop(receivers[0].body);
  const [conversations, notifications] = processes;
  // Every process's share of the burst, per delivery: where the two cores went.
  const natsPid = Number(execFileSync('pidof', ['nats-server'], { encoding: 'utf8' }).trim().split(/\s+/)[0]) || undefined;
  const cpuOf = async () => ({
    notifications: cpuSeconds(notifications.pid), notificationsSql: await sessionsCpuSeconds('notifications-service'),
    conversations: cpuSeconds(conversations.pid), conversationsSql: await sessionsCpuSeconds('conversations-service'),
    nats: natsPid ? cpuSeconds(natsPid) : 0, bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  });
  const cpuBefore = await cpuOf();
  const ours = await burst('burst', CHANGES);
  const cpuAfter = await cpuOf();
  const perDeliveryMs = Object.fromEntries(Object.keys(cpuBefore).map((k) => [k, ((cpuAfter[k] - cpuBefore[k]) * 1000) / ours.deliveries]));
  const cpuPerDeliveryMs = perDeliveryMs.notifications;
  const sqlPerDeliveryMs = perDeliveryMs.notificationsSql;
  const cpuSplit = `CPU per delivery in the burst, ms: notifications-service ${perDeliveryMs.notifications.toFixed(3)}, its PostgreSQL sessions ${perDeliveryMs.notificationsSql.toFixed(3)}, ` +
    `conversations-service ${perDeliveryMs.conversations.toFixed(3)}, its PostgreSQL sessions ${perDeliveryMs.conversationsSql.toFixed(3)}, NATS ${perDeliveryMs.nats.toFixed(3)}, ` +
    `the bench (publisher and receivers) ${perDeliveryMs.bench.toFixed(3)}`;
  log(cpuSplit);
  const rawAfter = await rawLoop(receivers[0].body);
  const raw = { deliveries: rawBefore.deliveries + rawAfter.deliveries, perSecond: (rawBefore.perSecond + rawAfter.perSecond) / 2 };
  log(`raw loop: ${rawBefore.perSecond.toFixed(0)} then ${rawAfter.perSecond.toFixed(0)} signed POSTs/s`);
  log(`service: ${ours.perSecond.toFixed(0)} deliveries/s (${ours.deliveries}) in ${ours.seconds.toFixed(1)} s, the last change committed at ${ours.lastCommitted.toFixed(1)} s and recorded as an event at ${ours.lastRecorded.toFixed(1)} s; notifications-service ${cpuPerDeliveryMs.toFixed(3)} ms of CPU per delivery, its PostgreSQL sessions ${sqlPerDeliveryMs.toFixed(3)} ms`);
  const calm = await steady('steady', receivers);
  log(`steady ${calm.offered.toFixed(0)} deliveries/s: p50 ${ms(calm.latency.p50)} ms, p99 ${ms(calm.latency.p99)} ms (recorded → 2xx p50 ${ms(calm.fromRecorded.p50)} ms, p99 ${ms(calm.fromRecorded.p99)} ms)`);
  receivers[0].hang = true;
  const hung = await steady('hanging', receivers.slice(1));
  log(`one endpoint hanging: the others' p50 ${ms(hung.latency.p50)} ms, p99 ${ms(hung.latency.p99)} ms (recorded → 2xx p50 ${ms(hung.fromRecorded.p50)} ms, p99 ${ms(hung.fromRecorded.p99)} ms)`);

  const bad = receivers.reduce((n, r) => n + r.badSignatures, 0);
  const duplicates = receivers.reduce((n, r) => n + r.duplicates, 0);
  if (bad > 0) throw new Error(`${bad} requests did not verify`);
  const ratio = ours.perSecond / raw.perSecond;
  const headline = `Outbound events: ${ours.perSecond.toFixed(0)} deliveries/s to ${ENDPOINTS} endpoints, ${ratio.toFixed(2)}× a raw loop of signed POSTs to the same receivers (${raw.perSecond.toFixed(0)}/s); commit → 2xx p99 ${ms(calm.latency.p99)} ms at ${RATE} deliveries/s, ${ms(hung.latency.p99)} ms for the other 9 with one endpoint hanging 15 s`;
  console.log(headline);
  if (QUICK) {
    log('quick run: nothing written');
  } else {
    const row = (label, r) => `| ${label} | ${ms(r.latency.p50)} | ${ms(r.latency.p90)} | ${ms(r.latency.p99)} | ${ms(r.latency.max)} | ${ms(r.fromRecorded.p50)} | ${ms(r.fromRecorded.p99)} |`;
    writeBenchmarkSection('outbound-events', [
      '## Outbound events (signed webhooks to 10 endpoints)',
      '',
      `**${headline}.**`,
      '',
      'Command: `npm run build && npm run bench:outbound` (env: `BENCH_CHANGES`, `BENCH_RATE`, `BENCH_SECONDS`, `BENCH_DATABASE_URL`, `BENCH_NATS_URL`, `BENCH_CPU_PROF`). ' +
      `Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end (the machine is shared); every signature verified, ${duplicates} duplicates; ${cpuSplit} (recording the events included); the last change committed ${ours.lastCommitted.toFixed(1)} s and recorded ${ours.lastRecorded.toFixed(1)} s after the first publish.`,
      '',
      '| deliveries/s (10 endpoints, each request verified) | deliveries | per second |',
      '|---|---:|---:|',
      `| ${CHANGES} changes at once → conversation.started × ${ENDPOINTS} (first publish → last 2xx) | ${ours.deliveries} | ${ours.perSecond.toFixed(0)} |`,
      `| raw loop: signed POSTs, ${CONCURRENCY} in flight, keep-alive (mean of ${RAW_SECONDS} s before and after) | ${raw.deliveries} | ${raw.perSecond.toFixed(0)} |`,
      '',
      `| commit → 2xx, ms (${STEADY_SECONDS} s at ${RATE} deliveries/s) | p50 | p90 | p99 | max | event recorded → 2xx p50 | p99 |`,
      '|---|---:|---:|---:|---:|---:|---:|',
      row(`all ${ENDPOINTS} endpoints (${calm.changes * ENDPOINTS} deliveries)`, calm),
      row(`the other 9 while one hangs 15 s per request (${hung.changes * (ENDPOINTS - 1)} deliveries)`, hung),
    ].join('\n'));
  }
} finally {
  for (const p of processes.reverse()) await p.stop().catch(() => undefined);
  for (const r of receivers) await r.close().catch(() => undefined);
  await db.end().catch(() => undefined);
  const jsm = await jetstreamManager(nc).catch(() => undefined);
  if (jsm) for await (const info of jsm.streams.list()) if (info.config.name.startsWith(`${namespace}_`)) await jsm.streams.delete(info.config.name).catch(() => undefined);
  await nc.close().catch(() => undefined);
  await database.drop();
}
