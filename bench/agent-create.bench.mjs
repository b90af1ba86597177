#!/usr/bin/env node
// `npm run bench:create` — POST /v1/agents latency when every create reaches its voice platform.
// The three apps run in one process (in-process bus, as `npm start` without NATS) on a fresh database of the
// local PostgreSQL, with the bundled platform_a simulator answering every call after BENCH_PLATFORM_DELAY_MS
// (default 50 ms). Each create (phone number omitted) costs the platform calls of a real create: search by
// external id, create, buy the number. The baseline is those same three calls made straight to the simulator in
// the same run: the ratio is what the service adds (database, bus, HTTP, recording the sync) on top of the platform.
// Writes the figures into BENCHMARKS.md between the agent-create markers. Needs `npm run build`.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { apiCaller, freshDatabase, importBuilt, ms, percentiles as summary, writeBenchmarkSection } from './support.mjs';

const CREATES = Number(process.env.BENCH_CREATES ?? 200);
const DELAY_MS = Number(process.env.BENCH_PLATFORM_DELAY_MS ?? 50);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const built = await importBuilt({
  kit: 'libs/service-kit/dist/index.js',
  sims: 'tools/platform-simulators/dist/index.js',
  agents: 'apps/agents-service/dist/app.js',
  conversations: 'apps/conversations-service/dist/app.js',
  gateway: 'apps/api-gateway/dist/app.js',
});
const { InProcessBus, InProcessStreams, SecretBox } = built.kit;
const { startSimulators } = built.sims;
const { startAgentsService } = built.agents;
const { startConversationsService } = built.conversations;
const { startGateway } = built.gateway;

const database = await freshDatabase(adminUrl, 'create');
const dbUrl = new URL(database.url);

const apiKey = `sim_${randomBytes(8).toString('hex')}`;
const simulators = await startSimulators({ apiKeys: [apiKey], webhookSecret: 'whsec_bench_secret_0000' });
const closers = [() => simulators.stop()];
try {
  const local = { rpc: new InProcessBus(), streams: new InProcessStreams() };
  const agents = await startAgentsService({
    databaseUrl: dbUrl.toString(),
    local,
    secretBox: new SecretBox({ current: randomBytes(32) }),
    platformHttp: { allowPrivate: true, timeoutMs: 5000 },
  });
  closers.unshift(() => agents.close());
  const conversations = await startConversationsService({ databaseUrl: dbUrl.toString(), local });
  closers.unshift(() => conversations.close());
  const adminToken = `admin_${randomBytes(8).toString('hex')}`;
  const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: dbUrl.toString(), local, adminToken, rpcTimeoutMs: 5000 });
  closers.unshift(() => gateway.close());
  const call = apiCaller(gateway.url);
  const account = await call('POST', '/v1/admin/accounts', adminToken, { name: 'Bench', plan: 'bench', agent_limit: CREATES + 10, voice_platforms: ['platform_a'] });
  const key = account.body.data.api_key;
  const put = await call('PUT', '/v1/integrations/platform_a', key, { api_key: apiKey, webhook_secret: 'whsec_bench_secret_0000', base_url: simulators.urls.platformA });
  if (put.status !== 200) throw new Error(`integration: ${put.status} ${JSON.stringify(put.body)}`);
  simulators.platformA.faults.delay(DELAY_MS);

  // Warm-up (JIT, connection pools), then the measured creates one after another.
  for (let i = 0; i < 5; i++) await call('POST', '/v1/agents', key, { name: `Warm-up ${i}`, voice_platform: 'platform_a' });
  const service = [];
  let synced = 0;
  for (let i = 0; i < CREATES; i++) {
    const started = performance.now();
    const res = await call('POST', '/v1/agents', key, { name: `Bench agent ${i}`, voice_platform: 'platform_a' });
    service.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.data.platform_sync.state === 'synced') synced += 1;
  }

  // Baseline: the same three platform calls, straight to the simulator.
  const platform = async (method, path, body) => {
    const res = await fetch(`${simulators.urls.platformA}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return res.json();
  };
  const raw = [];
  for (let i = 0; i < CREATES; i++) {
    const started = performance.now();
    const externalId = `raw_${i}`;
    await platform('GET', `/v2/agents?metadata.external_id=${externalId}`);
    const created = await platform('POST', '/v2/agents', { agent_name: `Raw ${i}`, webhook_url: 'http://127.0.0.1:9/hook', metadata: { external_id: externalId } });
    await platform('POST', '/v2/phone-numbers', { inbound_agent_id: created.agent_id });
    raw.push(performance.now() - started);
  }

  const ours = summary(service);
  const base = summary(raw);
  const headline = `POST /v1/agents (number bought on the platform, simulator answering in ${DELAY_MS} ms): p50 ${ms(ours.p50)} ms, p99 ${ms(ours.p99)} ms — ${(ours.p50 / base.p50).toFixed(2)}× the raw platform calls' p50 (${ms(base.p50)} ms), ${(ours.p99 / base.p99).toFixed(2)}× at p99`;
  const section = [
    '## Agent create with the platform sync',
    '',
    `**${headline}.**`,
    '',
    `Command: \`npm run build && npm run bench:create\` (env: \`BENCH_CREATES\`, \`BENCH_PLATFORM_DELAY_MS\`, \`BENCH_DATABASE_URL\`).`,
    `Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}. ${CREATES} creates one after another through HTTP, one process (in-process bus), ${synced}/${CREATES} answered \`synced\`.`,
    '',
    '| ms | p50 | p90 | p99 | max |',
    '|---|---|---|---|---|',
    `| POST /v1/agents (gateway → agents-service → 3 platform calls → recorded) | ${ms(ours.p50)} | ${ms(ours.p90)} | ${ms(ours.p99)} | ${ms(ours.max)} |`,
    `| raw: the same 3 calls straight to the simulator | ${ms(base.p50)} | ${ms(base.p90)} | ${ms(base.p99)} | ${ms(base.max)} |`,
  ].join('\n');
  writeBenchmarkSection('agent-create', section);
  console.log(headline);
} finally {
  for (const close of closers) await close().catch(() => undefined);
  await database.drop();
}
