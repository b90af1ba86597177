// The living demo: calls on the demo agents, placed on the platform simulators and delivered as their signed
// webhooks — the real ingest path — as they unfold (the start, each turn as it is said, the end, the analysis a
// few seconds later), one every ~20–60 s. DEMO_TRAFFIC=false stops it; DEMO_CALLS_PER_MINUTE sets its rate.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { die, root } from './output.mjs';

/** A call every 40 s on average: the overview and the list move while a newcomer watches, without burying the history. */
export const DEFAULT_CALLS_PER_MINUTE = 1.5;
/**
 * The demo account holds at most this many calls (DEMO_CALL_CAP): past it, a forgotten `npm start` would fill the
 * disk. The oldest go through the account's normal retention (see capAction).
 */
export const DEMO_CALL_CAP = 5_000;
const DAY_MS = 24 * 60 * 60_000;
/** A call still in progress this long after its start was cut off (a killed `npm start`): no demo call lasts as long. */
const STALE_CALL_MS = 10 * 60_000;
/** How often the running traffic looks for such calls, beside the look at start-up. */
const STALE_CHECK_EVERY_MS = 5 * 60_000;
/** Ctrl-C ends the calls still going on before the apps stop: this is all it may hold the stop up. */
const END_ON_STOP_TIMEOUT_MS = 5_000;

/**
 * What keeps the demo at its cap, through the retention every account has rather than a delete of its own: under
 * the cap a call is placed; at it, none is, and the demo agents' `retention.conversations_days` is lowered to the
 * oldest call's age in whole days, so the retention sweep erases (with tombstones) the calls older than that within
 * its interval, and the traffic goes on once the total is under the cap again. When every call is younger than a
 * day (retention's unit; only at a very high DEMO_CALLS_PER_MINUTE) the traffic waits for the day to pass.
 * `retentionDays`: what the demo agents have now (null: keep).
 */
export function capAction({ total, cap, oldestStartTime, now, retentionDays }) {
  if (total < cap) return { place: true };
  const ageDays = oldestStartTime ? Math.floor((now - Date.parse(oldestStartTime)) / DAY_MS) : 0;
  if (ageDays < 1 || (retentionDays !== null && retentionDays <= ageDays)) return { place: false };
  return { place: false, retentionDays: ageDays };
}

export function demoTrafficSettings(env) {
  const raw = env.DEMO_TRAFFIC?.trim() ?? '';
  if (raw !== '' && !/^(true|false|1|0|yes|no)$/i.test(raw)) die(`DEMO_TRAFFIC must be true or false, got "${raw}"`);
  const rate = env.DEMO_CALLS_PER_MINUTE?.trim() ?? '';
  const callsPerMinute = rate === '' ? DEFAULT_CALLS_PER_MINUTE : Number(rate);
  if (!Number.isFinite(callsPerMinute) || callsPerMinute <= 0 || callsPerMinute > 600) die(`DEMO_CALLS_PER_MINUTE must be a number above 0 and at most 600, got "${rate}"`);
  const capRaw = env.DEMO_CALL_CAP?.trim() ?? '';
  const cap = capRaw === '' ? DEMO_CALL_CAP : Number(capRaw);
  if (!Number.isInteger(cap) || cap < 1) die(`DEMO_CALL_CAP must be a whole number above 0, got "${capRaw}"`);
  return { enabled: !/^(false|0|no)$/i.test(raw), callsPerMinute, cap };
}

async function api(baseUrl, apiKey, method, path, body, timeoutMs = 10_000) {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${json?.error?.message ?? ''}`);
  return json;
}

/** The end of a call the demo stopped in the middle of, as a call event: failed, saying why. */
export function interrupted(conversationId, agentId, endedAt) {
  const at = new Date(endedAt).toISOString();
  return {
    id: `${conversationId}:demo-interrupted`,
    type: 'call.failed',
    conversation_id: conversationId,
    agent_id: agentId,
    occurred_at: at,
    data: {
      failure_reason: 'demo_interrupted',
      end_time: at,
      error: { code: 'demo_interrupted', message: 'The demo stopped before this simulated call ended.' },
    },
  };
}

/**
 * Calls a killed run left in progress (or the three "live" calls older demo data was seeded with) end as failed,
 * through the call-event ingest: nothing else would ever end them, and a call in progress for hours looks broken.
 */
export async function endStaleCalls({ baseUrl, apiKey, now = Date.now() }) {
  const page = await api(baseUrl, apiKey, 'GET', '/v1/conversations?status=in_progress&per_page=100');
  const events = staleCallEnds(page.data, now);
  if (events.length > 0) await api(baseUrl, apiKey, 'POST', '/v1/call-events', { events });
  return events.length;
}

/** The ends of the calls in progress (list items) that no running demo call could still be: each ended 5 minutes after its start. */
export function staleCallEnds(inProgress, now) {
  return inProgress
    .filter((call) => now - Date.parse(call.start_time) > STALE_CALL_MS)
    .map((call) => interrupted(call.id, call.agent_id, Math.min(now, Date.parse(call.start_time) + 5 * 60_000)));
}

/** What the simulator is asked to place for one scenario call. */
export function liveCallOptions(call, platformAgentId) {
  return {
    agentId: platformAgentId,
    outcome: call.end,
    fromNumber: call.callerNumber,
    turns: call.turns,
    ...(call.connected ? { durationMs: call.durationMs } : {}),
    analysis: call.analysis,
    live: true,
  };
}

/**
 * Starts the traffic; resolves with `{ stop(), placed() }`. The demo agents' platform ids come from the API
 * (they are created on the simulators by the seed); a call's scenario suits its agent (billing or front desk).
 */
export async function startDemoTraffic({ simulators, baseUrl, apiKey, callsPerMinute, cap = DEMO_CALL_CAP, log, firstCallInMs = 1_000 }) {
  const { prng, scenarioCall, pickScenario, SCENARIO_MIX } = await import(pathToFileURL(join(root, 'tools', 'call-generator', 'dist', 'index.js')).href);
  const random = prng(Date.now() % 2 ** 31);
  const page = await api(baseUrl, apiKey, 'GET', '/v1/agents?per_page=100&status=active');
  const agents = page.data
    .filter((agent) => typeof agent.platform_sync?.platform_agent_id === 'string')
    .map((agent) => ({
      id: agent.id,
      platform: agent.voice_platform,
      platformAgentId: agent.platform_sync.platform_agent_id,
      mix: agent.metadata?.department === 'billing' ? SCENARIO_MIX.billing : SCENARIO_MIX.front_desk,
      retention: agent.retention ?? { conversations_days: null, recordings_days: null },
    }));
  const simulatorOf = { platform_a: simulators.platformA, platform_b: simulators.platformB };
  let timer;
  let stopped = false;
  /** Calls whose webhooks are still being delivered, by the platform's call id (also their conversation id here). */
  const inFlight = new Map();
  let placed = 0;
  let problemShown = false;
  const meanGapMs = 60_000 / callsPerMinute;

  /** Whether a call may be placed now; at the cap, the demo agents' retention is lowered (see capAction). */
  const underCap = async () => {
    const { meta } = await api(baseUrl, apiKey, 'GET', '/v1/conversations?per_page=1');
    if (meta.total < cap) return true;
    const oldest = await api(baseUrl, apiKey, 'GET', '/v1/conversations?per_page=1&sort_by=start_time&sort_order=asc');
    const current = agents.map((agent) => agent.retention.conversations_days).filter((days) => days !== null);
    const action = capAction({
      total: meta.total, cap, oldestStartTime: oldest.data[0]?.start_time, now: Date.now(), retentionDays: current.length > 0 ? Math.max(...current) : null,
    });
    if (action.retentionDays !== undefined) {
      for (const agent of agents) {
        const retention = { ...agent.retention, conversations_days: action.retentionDays };
        await api(baseUrl, apiKey, 'PATCH', `/v1/agents/${agent.id}`, { retention });
        agent.retention = retention;
      }
      log(`demo traffic: the demo account has ${meta.total} calls (cap ${cap}); its agents now keep calls ${action.retentionDays} days, and the retention sweep erases the older ones`);
    }
    return action.place;
  };

  const placeOne = async () => {
    // The look at the cap is a round trip: a stop during it must not be followed by a call nothing would end.
    if (!(await underCap()) || stopped) return;
    const agent = agents[Math.floor(random() * agents.length)];
    const call = scenarioCall(random, pickScenario(random, agent.mix));
    const begun = simulatorOf[agent.platform].beginCall(liveCallOptions(call, agent.platformAgentId));
    placed += 1;
    inFlight.set(begun.callId, agent.id);
    // Deliveries the service refused are in its webhook-delivery log; nothing to do here.
    begun.settled
      .then(() => {
        // Finished and analysed: whoever opens it next can play it at once.
        if (!stopped && begun.recordingUrl) simulatorOf[agent.platform].recordings.prepare(begun.callId);
      })
      .catch(() => undefined)
      .finally(() => inFlight.delete(begun.callId));
  };
  const schedule = (inMs) => {
    if (stopped) return;
    timer = setTimeout(() => {
      placeOne()
        .then(() => {
          problemShown = false;
        })
        .catch((err) => {
          if (!problemShown) log(`demo traffic: a call could not be placed (${err.message}); trying again with the next one`);
          problemShown = true;
        })
        .finally(() => schedule(meanGapMs * (0.5 + random())));
    }, inMs);
    // The traffic never keeps the launcher alive on its own.
    timer.unref();
  };
  if (agents.length > 0) schedule(firstCallInMs);
  const staleCheck = setInterval(() => void endStaleCalls({ baseUrl, apiKey }).catch(() => undefined), STALE_CHECK_EVERY_MS);
  staleCheck.unref();
  simulators.platformA.recordings.warmUp();
  return {
    agents: agents.length,
    placed: () => placed,
    /** No more calls; those still going on end as failed (demo_interrupted), so none is left in progress for good. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(staleCheck);
      if (inFlight.size === 0) return;
      const events = [...inFlight].map(([callId, agentId]) => interrupted(callId, agentId, Date.now()));
      const ids = new Set(inFlight.keys());
      inFlight.clear();
      const deadline = Date.now() + END_ON_STOP_TIMEOUT_MS;
      try {
        await api(baseUrl, apiKey, 'POST', '/v1/call-events', { events }, END_ON_STOP_TIMEOUT_MS);
        // Accepted is only queued: the apps must record the ends before they stop, or a one-process start loses them.
        while (Date.now() < deadline) {
          const live = await api(baseUrl, apiKey, 'GET', '/v1/conversations?status=in_progress&per_page=100', undefined, Math.max(1, deadline - Date.now()));
          if (!live.data.some((call) => ids.has(call.id))) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        log('demo traffic: the calls in progress were not all ended before the stop; the next start ends them');
      } catch (err) {
        log(`demo traffic: the calls in progress could not be ended (${err.message}); the next start ends them`);
      }
    },
  };
}
