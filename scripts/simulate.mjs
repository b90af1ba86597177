#!/usr/bin/env node
// `npm run simulate -- --calls N` — realistic calls (every status, transcripts, topics, outcomes,
// sentiment), by one of three paths:
//   --via platforms  placed through the bundled platform simulators, which deliver signed webhooks to each
//                    agent's webhook_url (needs an API key to find the agents and their platform ids; the
//                    service's and simulators' URLs, and the demo key, default to those of the `npm start`
//                    running on DATA_DIR, read from DATA_DIR/ports.json and demo.json)
//   --via http       POST /v1/call-events (needs --url and --api-key with call_events:write;
//                    agents are read from GET /v1/agents when --agent-id is not given)
//   --via jetstream  straight to the CALL_EVENTS stream (needs --nats-url, --agent-id and, for a deployment
//                    whose publishers are scoped to an account, --account-id)
// The generator is tools/call-generator (a workspace package, built to its dist/ by `npm run build`).
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fetchPaced } from './fetch-paced.mjs';
import { demoApiKey, runningStart } from './local-start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HELP = `Usage: npm run simulate -- --calls N [options]

  --calls N            number of calls to simulate (required, 1..1000000)
  --via platforms|http|jetstream
                       platforms: placed on the platform simulators, delivered as signed webhooks
                       (default when an API key is given or \`npm start\` runs on DATA_DIR);
                       http: POST /v1/call-events; jetstream: straight onto the stream (default otherwise)
  --platform-a-url URL platform_a simulator (env PLATFORM_A_SIMULATOR_URL, default: the one \`npm start\`
                       runs, from DATA_DIR/ports.json, else http://127.0.0.1:4010)
  --platform-b-url URL platform_b simulator (env PLATFORM_B_SIMULATOR_URL, default: likewise, else :4020)
  --url URL            API base URL (env VOICE_API_URL, default: the one \`npm start\` runs, from
                       DATA_DIR/ports.json, else http://127.0.0.1:3000)
  --api-key KEY        API key with call_events:write (env VOICE_API_KEY, default: the demo key of
                       \`npm start\`, from DATA_DIR/demo.json, while it runs)
  --nats-url URL       NATS server for --via jetstream (env NATS_URL, default nats://127.0.0.1:4222)
  --namespace NS       NATS namespace of the deployment (env NATS_NAMESPACE)
  --agent-id ID        agent to attribute calls to; repeat or comma-separate for several
  --account-id ID      --via jetstream: the agents' account, published as call_events.<account_id>.<type>
                       (what a publisher scoped to the account may publish; without it call_events.<type>,
                       which a deployment with CALL_EVENTS_REQUIRE_ACCOUNT_SUBJECT=true refuses)
  --seed N             random seed (default: time based); the same seed gives the same calls
  --span-days N        spread call start times over the last N days (default 0: the calls happen now,
                       so they are at the top of the conversations list)
  --batch N            events per POST / publishes in flight (default 500)
`;

// Exit codes as the operator CLI's: 1 refused, 2 usage error, 3 service unreachable.
const fail = (message, code = 2) => {
  process.stderr.write(`simulate: ${message}\n`);
  process.exit(code);
};

let args;
try {
  args = parseArgs({
    options: {
      calls: { type: 'string' },
      via: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'nats-url': { type: 'string' },
      namespace: { type: 'string' },
      'agent-id': { type: 'string', multiple: true },
      'account-id': { type: 'string' },
      seed: { type: 'string' },
      'span-days': { type: 'string' },
      batch: { type: 'string' },
      'platform-a-url': { type: 'string' },
      'platform-b-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  }).values;
} catch (err) {
  fail(`${err.message}\n\n${HELP}`);
}
if (args.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const int = (name, value, fallback, min, max) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max} (got "${value}")`);
  return n;
};
if (args.calls === undefined) fail(`--calls is required\n\n${HELP}`);
const calls = int('calls', args.calls, 0, 1, 1_000_000);
const seed = int('seed', args.seed, Date.now() % 2_147_483_647, 0, 2_147_483_647);
const spanDays = int('span-days', args['span-days'], 0, 0, 3650);
const batch = int('batch', args.batch, 500, 1, 500);
const env = process.env;
// The `npm start` running on DATA_DIR, when there is one: its ports and its demo key are the defaults.
const local = runningStart();
const localKey = local.api ? demoApiKey() : undefined;
// Empty variables count as unset.
const apiUrl = args.url || env.VOICE_API_URL || undefined;
const via = args.via ?? (args['api-key'] || env.VOICE_API_KEY || localKey ? 'platforms' : apiUrl ? 'http' : 'jetstream');
if (!['platforms', 'http', 'jetstream'].includes(via)) fail(`--via must be platforms, http or jetstream (got "${via}")`);
let agentIds = (args['agent-id'] ?? []).flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean);

const generatorPath = join(root, 'tools', 'call-generator', 'dist', 'index.js');
if (!existsSync(generatorPath)) fail('the apps are not built yet: run `npm run build` first', 1);
const { generateCalls } = await import(pathToFileURL(generatorPath).href);

const started = Date.now();
// Generated calls last up to ~16 minutes: "now" means started 20 to 16 minutes ago, so every call has ended
// (or is still going) by now and none has events in the future; a span spreads them further back.
const NOW_WINDOW_MS = 4 * 60_000;
const spanMs = spanDays > 0 ? spanDays * 86_400_000 : NOW_WINDOW_MS;
const from = new Date(Date.now() - 16 * 60_000 - spanMs).toISOString();
const generatorSpanDays = spanMs / 86_400_000;
const summary = (generated) => {
  const byStatus = {};
  for (const c of generated) {
    const last = c.events.filter((e) => ['call.ended', 'call.failed', 'call.abandoned'].includes(e.type)).at(-1)?.type;
    const status = { 'call.ended': 'completed', 'call.failed': 'failed', 'call.abandoned': 'abandoned' }[last] ?? 'in_progress';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return byStatus;
};

if (via === 'http' || via === 'platforms') {
  const base = apiUrl ?? local.api ?? 'http://127.0.0.1:3000';
  if (!/^https?:\/\/[^/]/.test(base) || !URL.canParse(base)) fail(`--url must be an http or https URL (got "${base}")`);
  const key = args['api-key'] || env.VOICE_API_KEY || localKey;
  if (!key) fail(`--via ${via} needs --api-key (or VOICE_API_KEY)${via === 'http' ? ' with the call_events:write scope' : ' with agents:read'}`);
  const call = async (method, path, body) => {
    let res;
    try {
      res = await fetchPaced(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      fail(`cannot reach ${base}: ${err.cause?.code ?? err.cause?.message ?? err.message} (is the service running? see --url)`, 3);
    }
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // 502/503/504: the service (or one behind the gateway) is not answering.
    if (!res.ok) fail(`${method} ${path} → ${res.status} ${json?.error?.code ?? ''}: ${json?.error?.message ?? text}`, [502, 503, 504].includes(res.status) ? 3 : 1);
    return json;
  };
  if (via === 'platforms') {
    const { agentsOnPlatforms, placeCalls } = await import('./platform-calls.mjs');
    const simulatorUrls = {
      platform_a: args['platform-a-url'] || env.PLATFORM_A_SIMULATOR_URL || local.platform_a || 'http://127.0.0.1:4010',
      platform_b: args['platform-b-url'] || env.PLATFORM_B_SIMULATOR_URL || local.platform_b || 'http://127.0.0.1:4020',
    };
    for (const [platform, url] of Object.entries(simulatorUrls)) {
      if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) fail(`the ${platform} simulator URL must be an http or https URL (got "${url}")`);
    }
    const agents = await agentsOnPlatforms(call, agentIds);
    if (agents.length === 0) fail('no active agent of the account is live on a platform yet (platform_sync.platform_agent_id): create one, or wait for its sync', 1);
    let placed;
    try {
      // Without a span the simulators place each call now.
      placed = await placeCalls({ agents, simulatorUrls, calls, seed, spanMs: spanDays * 86_400_000 });
    } catch (err) {
      fail(err.message, err.unreachable ? 3 : 1);
    }
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `placed ${placed.placed} calls on ${agents.length} agents through the platform simulators in ${seconds.toFixed(1)} s, seed ${seed}: ` +
        `${placed.deliveries} webhook deliveries, ${placed.undelivered} not delivered\n` +
        `outcomes: ${Object.entries(placed.byOutcome).map(([k, v]) => `${k} ${v}`).join(', ')}\n`,
    );
    process.exit(placed.undelivered > 0 ? 1 : 0);
  }
  if (agentIds.length === 0) {
    const page = await call('GET', '/v1/agents?per_page=100&status=active');
    agentIds = page.data.map((a) => a.id);
    if (agentIds.length === 0) fail('the account has no active agent: create one first (POST /v1/agents), or pass --agent-id', 1);
  }
  const generated = generateCalls({ count: calls, seed, agentIds, from, spanDays: generatorSpanDays, idPrefix: `sim${seed.toString(36)}` });
  const events = generated.flatMap((c) => c.events);
  for (let i = 0; i < events.length; i += batch) {
    await call('POST', '/v1/call-events', { events: events.slice(i, i + batch) });
  }
  report(generated, events.length);
} else {
  if (agentIds.length === 0) fail('--via jetstream needs --agent-id (the agents must exist, or their events will wait until they do)');
  const { connect } = await import('@nats-io/transport-node');
  const { jetstream } = await import('@nats-io/jetstream');
  const natsUrl = args['nats-url'] ?? env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const namespace = args.namespace ?? env.NATS_NAMESPACE;
  const accountId = args['account-id']?.trim();
  if (accountId !== undefined && !/^[A-Za-z0-9_-]+$/.test(accountId)) fail(`--account-id must be an account id (got "${accountId}")`);
  // Credentials in the URL (nats://user:password@host) are honoured as the apps honour them.
  const kit = await import(pathToFileURL(join(root, 'libs', 'service-kit', 'dist', 'index.js')).href);
  let nc;
  try {
    nc = await connect({ ...kit.natsConnectionOptions(natsUrl), name: 'simulator' });
  } catch (err) {
    fail(`cannot connect to NATS at ${natsUrl.replace(/\/\/[^@/]*@/g, '//')}: ${err.message}`, 3);
  }
  const js = jetstream(nc);
  const generated = generateCalls({ count: calls, seed, agentIds, from, spanDays: generatorSpanDays, idPrefix: `sim${seed.toString(36)}` });
  const events = generated.flatMap((c) => c.events);
  const subject = (type) => `${namespace ? `${namespace}.` : ''}call_events.${accountId ? `${accountId}.` : ''}${type}`;
  try {
    for (let i = 0; i < events.length; i += batch) {
      // Nats-Msg-Id = <account>:<event id> as the gateway sets it (<agent>:<event id> without --account-id; ids are
      // unique per account only): a re-run with the same seed is de-duplicated by JetStream and by the service,
      // and never collides with another account's events.
      await Promise.all(events.slice(i, i + batch).map((e) => js.publish(subject(e.type), JSON.stringify(e), { msgID: `${accountId ?? e.agent_id}:${e.id}` })));
    }
  } catch (err) {
    // No stream answering (no responders, timeouts) means the service is not there: "unreachable".
    fail(`publish failed: ${err.message} (is conversations-service running? it creates the CALL_EVENTS stream)`, /no responders|timeout|503/i.test(err.message) ? 3 : 1);
  } finally {
    await nc.drain();
  }
  report(generated, events.length);
}

function report(generated, eventCount) {
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `published ${generated.length} calls (${eventCount} events) via ${via} in ${seconds.toFixed(1)} s, seed ${seed}\n` +
      `statuses: ${Object.entries(summary(generated)).map(([k, v]) => `${k} ${v}`).join(', ')}\n`,
  );
}
