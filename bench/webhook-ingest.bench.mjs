#!/usr/bin/env node
// `npm run bench:webhooks` — how fast platform webhooks become listed conversations.
// The distributed stack (gateway, agents-service, conversations-service over the local NATS server with JetStream,
// a fresh database of the local PostgreSQL) with the bundled platform_a simulator placing completed calls on a
// synced agent: every call is 9 signed deliveries (call_started, 6 × transcript_updated, call_ended,
// call_analyzed), each verified, mapped, queued on JetStream and logged before its 200.
// - Ingest rate: deliveries answered 200 per second, BENCH_CONCURRENCY calls at once. The baseline (same run, same
//   simulator, same calls) is a raw durable receiver: node:http, HMAC check over the raw body, one INSERT of the
//   body into PostgreSQL and one JetStream publish, 200 once both are done — the I/O a delivery cannot do without.
//   A bare receiver that answers 200 at once shows what the simulator itself can send.
// - ack → listed: from the 200 of a call's last delivery to the moment GET /v1/conversations lists it completed
//   with its summary (polled every 5 ms), one call at a time.
// Writes the figures into BENCHMARKS.md between the webhook-ingest markers. Needs `npm run build`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { apiCaller, freshDatabase, importBuilt, ms, percentiles as summary, writeBenchmarkSection } from './support.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const built = await importBuilt({
  kit: 'libs/service-kit/dist/index.js',
  sims: 'tools/platform-simulators/dist/index.js',
  agents: 'apps/agents-service/dist/app.js',
  conversations: 'apps/conversations-service/dist/app.js',
  gateway: 'apps/api-gateway/dist/app.js',
});
const { SecretBox, createLogger } = built.kit;
const { startSimulators, startWebhookReceiver } = built.sims;
const { startAgentsService } = built.agents;
const { startConversationsService } = built.conversations;
const { startGateway } = built.gateway;

const namespace = `bench_${randomBytes(4).toString('hex')}`;
const database = await freshDatabase(adminUrl, 'webhooks');
const dbUrl = new URL(database.url);

const apiKey = `sim_${randomBytes(8).toString('hex')}`;
const secret = `whsec_${randomBytes(12).toString('hex')}`;
const simulators = await startSimulators({ apiKeys: [apiKey], webhookSecret: secret });
const closers = [() => simulators.stop()];
const quiet = createLogger('bench');
quiet.level = process.env.BENCH_LOG_LEVEL ?? 'warn';
try {
  const common = { databaseUrl: dbUrl.toString(), natsUrl, namespace, logger: quiet };
  const agents = await startAgentsService({ ...common, secretBox: new SecretBox({ current: randomBytes(32) }), platformHttp: { allowPrivate: true, timeoutMs: 5000 } });
  closers.unshift(() => agents.close());
  const conversations = await startConversationsService(common);
  closers.unshift(() => conversations.close());
  const adminToken = `admin_${randomBytes(8).toString('hex')}`;
  // Rate limits off: the probe polling for the listed call must never be told to wait (webhooks are never limited anyway).
  const gateway = await startGateway({ ...common, port: 0, host: '127.0.0.1', adminToken, rpcTimeoutMs: 5000, rateLimits: { enabled: false } });
  closers.unshift(() => gateway.close());
  const call = apiCaller(gateway.url);
  const account = await call('POST', '/v1/admin/accounts', adminToken, { name: 'Bench', plan: 'bench', agent_limit: 10, voice_platforms: ['platform_a'] });
  const key = account.body.data.api_key;
  const put = await call('PUT', '/v1/integrations/platform_a', key, { api_key: apiKey, webhook_secret: secret, base_url: simulators.urls.platformA });
  if (put.status !== 200) throw new Error(`integration: ${put.status} ${JSON.stringify(put.body)}`);
  const created = await call('POST', '/v1/agents', key, { name: 'Bench desk', voice_platform: 'platform_a' });
  const platformAgentId = created.body.data.platform_sync.platform_agent_id;
  if (!platformAgentId) throw new Error(`agent not synced: ${JSON.stringify(created.body)}`);
  const place = (options = {}) => simulators.platformA.placeCall({ agentId: platformAgentId, analysis: { summary: 'Benchmarked.' }, delivery: { retries: 0 }, ...options });
  const undelivered = (placed) => placed.deliveries.filter((d) => !d.delivered).length;

  const run = async (count, options) => {
    let next = 0;
    let deliveries = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < count) {
          const placed = await place(options);
          deliveries += placed.deliveries.length;
          failed += undelivered(placed);
        }
      }),
    );
    return { perSecond: deliveries / ((performance.now() - started) / 1000), deliveries, failed };
  };

  // Warm-up (JIT, pools, JetStream consumer), then the measured runs.
  await run(CONCURRENCY * 2);
  const receiver = await startWebhookReceiver();
  closers.unshift(() => receiver.stop());
  const durable = await startRawDurableReceiver(dbUrl.toString(), natsUrl, namespace, secret);
  closers.unshift(() => durable.stop());
  const bare = await run(CALLS, { webhookUrl: receiver.url });
  await run(CONCURRENCY, { webhookUrl: durable.url });
  const raw = await run(CALLS, { webhookUrl: durable.url });
  if (raw.failed > 0) throw new Error(`${raw.failed} deliveries to the raw receiver failed`);
  const ours = await run(CALLS);
  if (ours.failed > 0) throw new Error(`${ours.failed} deliveries were not answered 200`);

  const lag = [];
  for (let i = 0; i < LATENCY_CALLS; i++) {
    const placed = await place();
    // placeCall resolves once its last delivery was answered: that 200 is the ack.
    const acked = performance.now();
    const path = `/v1/conversations/${encodeURIComponent(placed.callId)}`;
    for (;;) {
      const res = await call('GET', path, key);
      if (res.status === 200 && res.body.data.status === 'completed' && res.body.data.summary === 'Benchmarked.') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    lag.push(performance.now() - acked);
  }
  const lagSummary = summary(lag);

  const headline = `Platform webhooks: ${ours.perSecond.toFixed(0)} deliveries/s verified, mapped, queued and logged — ${(ours.perSecond / raw.perSecond).toFixed(2)}× a raw durable receiver's ${raw.perSecond.toFixed(0)}/s (HMAC + INSERT + JetStream publish), ${CONCURRENCY} calls at once; ack → listed p50 ${ms(lagSummary.p50)} ms, p99 ${ms(lagSummary.p99)} ms`;
  const section = [
    '## Platform webhook ingest',
    '',
    `**${headline}.**`,
    '',
    'Command: `npm run build && npm run bench:webhooks` (env: `BENCH_CALLS`, `BENCH_LATENCY_CALLS`, `BENCH_CONCURRENCY`, `BENCH_DATABASE_URL`, `BENCH_NATS_URL`).',
    `Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}. Distributed stack over the local NATS (JetStream) and PostgreSQL, all in one Node process; the simulator, its HTTP client and the receiver share the machine.`,
    '',
    '| | deliveries | deliveries/s |',
    '|---|---|---|',
    `| ${CALLS} completed platform_a calls → our webhook URL (200 once queued and logged) | ${ours.deliveries} | ${ours.perSecond.toFixed(0)} |`,
    `| raw durable receiver: node:http, HMAC, INSERT of the body, JetStream publish, then 200 | ${raw.deliveries} | ${raw.perSecond.toFixed(0)} |`,
    `| bare receiver: 200 at once (what the simulator can send) | ${bare.deliveries} | ${bare.perSecond.toFixed(0)} |`,
    '',
    '| ms, one call at a time | p50 | p90 | p99 | max |',
    '|---|---|---|---|---|',
    `| last delivery's 200 → GET /v1/conversations/{id} shows it completed with its analysis (${LATENCY_CALLS} calls) | ${ms(lagSummary.p50)} | ${ms(lagSummary.p90)} | ${ms(lagSummary.p99)} | ${ms(lagSummary.max)} |`,
  ].join('\n');
  console.log(`deliveries/s: ours ${ours.perSecond.toFixed(0)}, raw durable ${raw.perSecond.toFixed(0)}, bare ${bare.perSecond.toFixed(0)}`);
  writeBenchmarkSection('webhook-ingest', section);
  console.log(headline);
} finally {
  for (const close of closers) await close().catch(() => undefined);
  await database.drop();
}

/** The baseline: what any receiver that keeps a delivery durably must do, and nothing else. */
async function startRawDurableReceiver(databaseUrl, nats, ns, webhookSecret) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query('CREATE TABLE IF NOT EXISTS public.raw_deliveries (id bigserial PRIMARY KEY, received_at timestamptz NOT NULL DEFAULT now(), body bytea NOT NULL)');
  const { connect } = await import('@nats-io/transport-node');
  const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: nats });
  const stream = `${ns}_RAW_WEBHOOKS`;
  await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [`${ns}.raw_webhooks`] });
  const js = jetstream(nc);
  let sequence = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const [v, d] = String(req.headers['x-platform-a-signature'] ?? '').split(',').map((p) => p.slice(2));
      const expected = createHmac('sha256', webhookSecret).update(body).update(v ?? '').digest();
      const given = Buffer.from(d ?? '', 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return res.writeHead(401).end();
      try {
        await Promise.all([pool.query('INSERT INTO public.raw_deliveries (body) VALUES ($1)', [body]), js.publish(`${ns}.raw_webhooks`, body, { msgID: `raw-${++sequence}` })]);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(503).end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/raw`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.drain();
      await pool.end();
    },
  };
}
