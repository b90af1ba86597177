// First-start demo data: an account with an all-scopes key, two agents and about
// 200 realistic conversations with transcripts — created through the public API,
// so the demo exercises exactly what clients use: the history through POST /v1/call-events,
// and the latest calls placed on the platform simulators, which deliver them as signed
// webhooks (with retries, duplicates and reordering). Remembered in <DATA_DIR>/demo.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const DEMO_AGENTS = [
  {
    name: 'Front Desk',
    voice_platform: 'platform_a',
    language: 'en',
    system_prompt: 'You are the friendly receptionist of Harbor Dental. Book, move and cancel appointments; answer questions about opening hours and insurance.',
    welcome_message: 'Thanks for calling Harbor Dental, how can I help you today?',
    transfer_number: '+14155550100',
    business_hours: {
      timezone: 'America/Los_Angeles',
      schedule: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => ({ day, open: '08:00', close: '18:00' })),
    },
    metadata: { department: 'reception' },
  },
  {
    name: 'Billing Support',
    voice_platform: 'platform_b',
    language: 'en',
    system_prompt: 'You help Harbor Dental patients with invoices, payment plans and insurance claims. Escalate disputes to a human.',
    welcome_message: 'Harbor Dental billing, how can I help?',
    recording_enabled: true,
    metadata: { department: 'billing' },
  },
];

/**
 * `calls` finished conversations as a real account would have them, spread over the last two weeks and ending
 * an hour ago at the latest: the demo's scenarios (bookings on the front desk, disputes on the billing line…),
 * each a coherent transcript with the analysis that matches it. None is left in progress: the live calls are the
 * demo traffic's (scripts/start/demo-traffic.mjs), which end. Deterministic: the same seed every time.
 * `recordingUrlFor(conversationId, agentIndex)` gives a connected call its recording's URL.
 */
export function demoHistory({ prng, scenarioCall, pickScenario, SCENARIO_MIX, agentIds, calls, now = Date.now(), recordingUrlFor = () => undefined }) {
  const random = prng(20261122);
  const hour = 3_600_000;
  const from = now - 14 * 24 * hour;
  const span = 14 * 24 * hour - hour - 5 * 60_000;
  return Array.from({ length: calls }, (_, n) => {
    const agentIndex = Math.floor(random() * agentIds.length);
    const mix = DEMO_AGENTS[agentIndex]?.metadata?.department === 'billing' ? SCENARIO_MIX.billing : SCENARIO_MIX.front_desk;
    const call = scenarioCall(random, pickScenario(random, mix));
    const conversationId = `demo-${n.toString(36)}-${Math.floor(random() * 1e9).toString(36)}`;
    const startedAt = from + Math.floor((random() * span) / 1000) * 1000;
    const recordingUrl = call.turns.length > 0 ? recordingUrlFor(conversationId, agentIndex) : undefined;
    return { conversationId, agentId: agentIds[agentIndex], agentIndex, call, startedAt, recordingUrl, usdPerMinute: 0.07 + random() * 0.05 };
  });
}

async function api(baseUrl, token, method, path, body) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${json?.error?.code ?? ''} ${json?.error?.message ?? text}`);
  return json;
}

/**
 * `platforms`: the integration body per platform (the bundled simulators), PUT for the demo account before its
 * agents are created — and again on every start, since the simulators may listen elsewhere than last time.
 */
async function configureIntegrations(baseUrl, apiKey, platforms) {
  for (const [platform, body] of Object.entries(platforms ?? {})) await api(baseUrl, apiKey, 'PUT', `/v1/integrations/${platform}`, body);
}

/** Calls of the demo placed through the platform simulators, on top of the generated history. */
const PLATFORM_CALLS = 12;

/** The latest calls, placed on the simulators once the agents are live there; resolves with how many were delivered whole. */
async function placePlatformCalls(baseUrl, apiKey, platforms) {
  const { agentsOnPlatforms, placeCalls } = await import('./platform-calls.mjs');
  const request = (method, path) => api(baseUrl, apiKey, method, path);
  let agents = [];
  for (const deadline = Date.now() + 15_000; Date.now() < deadline && agents.length < DEMO_AGENTS.length; ) {
    agents = await agentsOnPlatforms(request);
    if (agents.length < DEMO_AGENTS.length) await new Promise((r) => setTimeout(r, 200));
  }
  if (agents.length === 0) return 0;
  const simulatorUrls = Object.fromEntries(Object.entries(platforms).map(([platform, body]) => [platform, body.base_url]));
  const result = await placeCalls({ agents, simulatorUrls, calls: PLATFORM_CALLS, seed: 20261126, spanMs: 6 * 3_600_000 });
  return result.placed;
}

/**
 * `simulators` (the running platform simulators, when `npm start` runs them): the history's recordings are
 * registered there, to be synthesised from the transcript when first played.
 */
export async function seedDemoData({ baseUrl, adminToken, dataDir, platforms, simulators, calls = 200, log = () => undefined }) {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    // The data dir may outlive the database it was seeded into (another DATABASE_URL): check the key still works.
    const res = await fetch(new URL('/v1/agents?per_page=1', baseUrl), { headers: { authorization: `Bearer ${saved.apiKey}` } });
    if (res.ok) {
      await configureIntegrations(baseUrl, saved.apiKey, platforms);
      return saved;
    }
  }
  log('creating demo data (skip with SEED_DEMO=false)…');
  const account = (await api(baseUrl, adminToken, 'POST', '/v1/admin/accounts', {
    name: 'Harbor Dental (demo)',
    plan: 'demo',
    agent_limit: 10,
    voice_platforms: ['platform_a', 'platform_b'],
  })).data;
  // Agents are created on their voice platform: the account needs an integration for each first.
  await configureIntegrations(baseUrl, account.api_key, platforms);
  const agentIds = [];
  for (const agent of DEMO_AGENTS) agentIds.push((await api(baseUrl, account.api_key, 'POST', '/v1/agents', agent)).data.id);

  const generator = await import(pathToFileURL(join(root, 'tools', 'call-generator', 'dist', 'index.js')).href);
  const simulatorOf = (agentIndex) => (DEMO_AGENTS[agentIndex].voice_platform === 'platform_a' ? simulators?.platformA : simulators?.platformB);
  const history = demoHistory({ ...generator, agentIds, calls, recordingUrlFor: (id, agentIndex) => simulatorOf(agentIndex)?.recordingUrl(id) });
  for (const { conversationId, call, agentIndex, recordingUrl } of history) {
    if (!recordingUrl) continue;
    simulatorOf(agentIndex).recordings.register(conversationId, { turns: call.turns, durationMs: call.durationMs });
  }
  const events = history.flatMap(({ call, conversationId, agentId, startedAt, recordingUrl, usdPerMinute }) =>
    generator.historyCallEvents(call, { conversationId, agentId, startedAt, recordingUrl, usdPerMinute }),
  );
  for (let i = 0; i < events.length; i += 500) {
    await api(baseUrl, account.api_key, 'POST', '/v1/call-events', { events: events.slice(i, i + 500) });
  }
  const placed = platforms ? await placePlatformCalls(baseUrl, account.api_key, platforms) : 0;
  // Ingest is asynchronous (202 once the events are queued): wait until the calls are listed,
  // so the curl printed next already shows them.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const page = await api(baseUrl, account.api_key, 'GET', '/v1/conversations?per_page=1');
    if (page.meta.total >= calls + placed) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const saved = { accountId: account.id, apiKey: account.api_key, agentIds, calls: calls + placed, createdAt: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  log(`demo data: 1 account, ${agentIds.length} agents, ${calls + placed} calls (${events.length} events, ${placed} calls through the platform simulators' webhooks)`);
  return saved;
}
