// Calls placed through the bundled voice-platform simulators (tools/platform-simulators): each simulator
// signs its webhooks with the integration's secret and delivers them to the agent's webhook_url, with the
// platform's retries — and here, for some calls, duplicates and reordering — so the calls reach the service
// through its real webhook ingest. Used by `npm run simulate -- --via platforms` and the zero-setup demo data.
// Needs `npm run build` (the call generator's seeded random numbers, so the same seed places the same calls).
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { prng, scenarioCall, pickScenario, SCENARIO_MIX } = await import(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'call-generator', 'dist', 'index.js')).href);

/**
 * What one simulated call looks like: a demo scenario suited to the agent (a booking on the front desk, a dispute
 * on the billing line…), its transcript timed as spoken and the analysis that matches it, and a little chaos (as
 * real platforms deliver).
 */
export function callPlan(random, agent, { now = Date.now(), spanMs = 0 } = {}) {
  const call = scenarioCall(random, pickScenario(random, agent.department === 'billing' ? SCENARIO_MIX.billing : SCENARIO_MIX.front_desk));
  const chaos = {};
  if (random() < 0.2) chaos.duplicate = true;
  if (random() < 0.1) chaos.reorder = 'end-before-start';
  return {
    agentId: agent.platformAgentId,
    outcome: call.end,
    fromNumber: call.callerNumber,
    turns: call.turns,
    ...(call.connected ? { durationMs: call.durationMs } : {}),
    // Spread over the span, ending at least ten minutes ago so no call ends in the future.
    ...(spanMs > 0 ? { startedAt: Math.floor(now - 600_000 - random() * spanMs) } : {}),
    analysis: call.analysis,
    ...(Object.keys(chaos).length > 0 ? { chaos } : {}),
  };
}

/** The account's agents that are live on a platform, with the platform's id of each. */
export async function agentsOnPlatforms(request, onlyIds = []) {
  const page = await request('GET', '/v1/agents?per_page=100&status=active');
  return page.data
    .filter((a) => typeof a.platform_sync?.platform_agent_id === 'string' && (onlyIds.length === 0 || onlyIds.includes(a.id)))
    .map((a) => ({ id: a.id, platform: a.voice_platform, platformAgentId: a.platform_sync.platform_agent_id, department: a.metadata?.department }));
}

/**
 * Places `calls` calls on `agents` through the simulators' control API (POST <simulator>/__sim/calls),
 * `concurrency` at a time. Resolves with what was placed and delivered.
 */
export async function placeCalls({ agents, simulatorUrls, calls, seed, spanMs = 0, concurrency = 8 }) {
  const random = prng(seed);
  const plans = Array.from({ length: calls }, () => {
    const agent = agents[Math.floor(random() * agents.length)];
    return { agent, options: callPlan(random, agent, { spanMs }) };
  });
  const result = { placed: 0, deliveries: 0, undelivered: 0, byOutcome: {} };
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const { agent, options } = plans[next++];
      const url = new URL('/__sim/calls', simulatorUrls[agent.platform]);
      let res;
      try {
        res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(options) });
      } catch (err) {
        throw Object.assign(new Error(`cannot reach the ${agent.platform} simulator at ${url.origin}: ${err.cause?.code ?? err.message}`), { unreachable: true });
      }
      const placed = await res.json();
      if (!res.ok) throw new Error(`the ${agent.platform} simulator refused a call: ${res.status} ${placed.error ?? ''}`);
      result.placed += 1;
      result.deliveries += placed.deliveries.length;
      result.undelivered += placed.deliveries.filter((d) => !d.delivered).length;
      result.byOutcome[options.outcome] = (result.byOutcome[options.outcome] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, plans.length) }, worker));
  return result;
}
