import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { VoicePlatform } from '@voice/contracts';
import { DEFAULT_API_KEY, startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { createVoicePlatformAdapters } from '@voice/voice-platforms';
import type { PlatformAgentSpec, PlatformConnection } from '@voice/voice-platforms';
import { planPlatformSync, type DesiredPlatformAgent, type SyncFacts } from './platform-sync.decider.js';
import { executePlatformSync, syncAgentToPlatforms, type PlatformSyncOutcome, type PlatformSyncRunOptions } from './platform-sync.executor.js';

let simulators: RunningSimulators;
const adapters = createVoicePlatformAdapters({ allowPrivate: true, timeoutMs: 2000 });
const connections: Partial<Record<VoicePlatform, PlatformConnection>> = {};

const run = (overrides: Partial<PlatformSyncRunOptions> = {}): PlatformSyncRunOptions => ({
  adapters,
  connectionFor: (platform) => connections[platform],
  random: () => 0.5,
  ...overrides,
});

const spec = (platform: VoicePlatform): PlatformAgentSpec => ({
  external_id: 'agt_0123456789abcdef01234567',
  name: 'Front desk',
  system_prompt: 'You answer calls for a dental practice.',
  welcome_message: 'Hello, how can I help?',
  voice_id: platform === 'platform_a' ? 'pa-voice-warm' : 'pb-voice-warm',
  language: 'en-US',
  transfer_number: null,
  webhook_url: `https://hooks.example/${platform}`,
});

const desired = (platform: VoicePlatform, overrides: Partial<DesiredPlatformAgent> = {}): DesiredPlatformAgent => ({
  status: 'active', voice_platform: platform, spec: spec(platform), phone_number: null, area_code: '415', ...overrides,
});

const CUSTOMER_NUMBER = '+14155550142';

/** The simulator's agents and numbers in one shape for both platforms. */
function platformState(platform: VoicePlatform) {
  if (platform === 'platform_a') {
    return {
      agents: simulators.platformA.agents().map((agent) => ({ id: agent.agent_id, external_id: agent.metadata.external_id })),
      numbers: simulators.platformA.phoneNumbers().map((n) => ({ phone_number: n.phone_number, bound_to: n.inbound_agent_id, purchased: n.purchased })),
    };
  }
  return {
    agents: simulators.platformB.agents().map((a) => ({ id: a.id, external_id: (a.metadata as Record<string, unknown> | undefined)?.externalId })),
    numbers: simulators.platformB.phoneNumbers().map((n) => ({ phone_number: n.number, bound_to: n.assistantId })),
  };
}

async function synced(want: DesiredPlatformAgent, facts: SyncFacts = {}): Promise<SyncFacts> {
  const outcome = await syncAgentToPlatforms(want, facts, run());
  expect(outcome).toMatchObject({ kind: 'synced' });
  expect(planPlatformSync(want, outcome.facts)).toEqual([]);
  return outcome.facts;
}

beforeAll(async () => {
  simulators = await startSimulators();
  connections.platform_a = { baseUrl: simulators.urls.platformA, apiKey: DEFAULT_API_KEY };
  connections.platform_b = { baseUrl: simulators.urls.platformB, apiKey: DEFAULT_API_KEY };
});

afterAll(async () => {
  await simulators?.stop();
});

beforeEach(() => {
  simulators.platformA.reset();
  simulators.platformB.reset();
});

describe.each<VoicePlatform>(['platform_a', 'platform_b'])('platform sync on %s', (platform) => {
  it('create with a bought number: one platform agent with our external id, the number bound to it', async () => {
    const facts = await synced(desired(platform));
    const { agents, numbers } = platformState(platform);
    expect(agents).toEqual([{ id: facts[platform]?.platform_agent_id, external_id: 'agt_0123456789abcdef01234567' }]);
    expect(numbers).toEqual([expect.objectContaining({ phone_number: facts[platform]?.number?.phone_number, bound_to: agents[0].id })]);
    expect(facts[platform]?.number).toMatchObject({ purchased: true });
  });

  it('create with an imported number; a re-run after a crash (nothing recorded) still leaves one platform agent', async () => {
    const want = desired(platform, { phone_number: CUSTOMER_NUMBER });
    const first = await synced(want);
    // Crash before the commit: the agent's facts were lost, the number's too (re-imports of it would clash: see README).
    const replayed = await executePlatformSync(planPlatformSync(want, {}).slice(0, 1), {}, run());
    expect(replayed.kind).toBe('synced');
    expect(replayed.facts[platform]?.platform_agent_id).toBe(first[platform]?.platform_agent_id);
    const { agents, numbers } = platformState(platform);
    expect(agents).toHaveLength(1);
    expect(numbers).toEqual([expect.objectContaining({ phone_number: CUSTOMER_NUMBER, bound_to: agents[0].id })]);
    expect(first[platform]?.number).toMatchObject({ purchased: false });
  });

  it('a crash between the platform\'s 201 and our commit: the full re-run finds the agent (updated to the spec) and creates no second one', async () => {
    const want = desired(platform);
    const crashed = await syncAgentToPlatforms(want, {}, run({
      onStep: (_facts, step) => {
        if (step.type === 'find_or_create_agent') throw new Error('crash before the facts were recorded');
      },
    })).catch((error: Error) => error);
    expect(crashed).toBeInstanceOf(Error);
    expect(platformState(platform).agents).toHaveLength(1);
    const facts = await synced(desired(platform, { spec: { ...spec(platform), name: 'Renamed meanwhile' } }));
    const { agents, numbers } = platformState(platform);
    expect(agents).toEqual([{ id: facts[platform]?.platform_agent_id, external_id: 'agt_0123456789abcdef01234567' }]);
    expect(numbers).toEqual([expect.objectContaining({ bound_to: agents[0].id })]);
    const name = platform === 'platform_a' ? simulators.platformA.agents()[0].agent_name : simulators.platformB.agents()[0].name;
    expect(name).toBe('Renamed meanwhile');
  });

  it('pause unbinds the number, resume binds it again, an update sends only the changes', async () => {
    const facts = await synced(desired(platform));
    const paused = await synced(desired(platform, { status: 'paused' }), facts);
    expect(platformState(platform).numbers[0].bound_to).toBeNull();
    const resumed = await synced(desired(platform), paused);
    expect(platformState(platform).numbers[0].bound_to).toBe(facts[platform]?.platform_agent_id);

    const server = platform === 'platform_a' ? simulators.platformA : simulators.platformB;
    server.clearRequests();
    await synced(desired(platform, { spec: { ...spec(platform), name: 'Reception' } }), resumed);
    expect(server.requests()).toEqual([expect.objectContaining({ method: 'PATCH', body: platform === 'platform_a' ? { agent_name: 'Reception' } : { name: 'Reception' } })]);
  });

  it('delete: the platform agent is gone and a bought number released', async () => {
    const facts = await synced(desired(platform));
    const gone = await synced(desired(platform, { status: 'deleted' }), facts);
    expect(gone).toEqual({});
    expect(platformState(platform)).toEqual({ agents: [], numbers: [] });
  });

  it('delete: an imported number is only unbound, never deleted', async () => {
    const facts = await synced(desired(platform, { phone_number: CUSTOMER_NUMBER }));
    await synced(desired(platform, { status: 'deleted', phone_number: CUSTOMER_NUMBER }), facts);
    expect(platformState(platform)).toEqual({ agents: [], numbers: [expect.objectContaining({ phone_number: CUSTOMER_NUMBER, bound_to: null })] });
  });

  it('429 with Retry-After → retry no sooner than the header says', async () => {
    const server = platform === 'platform_a' ? simulators.platformA : simulators.platformB;
    server.faults.rateLimit({ count: 1, retryAfterSeconds: 7 });
    const outcome = await syncAgentToPlatforms(desired(platform), {}, run({ random: () => 0 }));
    expect(outcome).toMatchObject({ kind: 'retry', error: { code: 'platform_unavailable' }, step: { type: 'find_or_create_agent' } });
    expect((outcome as Extract<PlatformSyncOutcome, { kind: 'retry' }>).retryAfterMs).toBeGreaterThanOrEqual(7000);
  });

  it('an unknown voice → permanent platform_rejected naming voice_id', async () => {
    const outcome = await syncAgentToPlatforms(desired(platform, { spec: { ...spec(platform), voice_id: 'no-such-voice' } }), {}, run());
    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'platform_rejected', field: 'voice_id' } });
    expect(platformState(platform).agents).toEqual([]);
  });

  it('401 → permanent invalid_platform_credentials', async () => {
    const server = platform === 'platform_a' ? simulators.platformA : simulators.platformB;
    server.faults.revokeKeys();
    const outcome = await syncAgentToPlatforms(desired(platform), {}, run());
    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'invalid_platform_credentials' } });
  });
});

describe('switching platform', () => {
  it.each<[VoicePlatform, VoicePlatform]>([['platform_a', 'platform_b'], ['platform_b', 'platform_a']])(
    '%s → %s: the agent on the new platform answering the same number; old agent gone, number unbound there',
    async (from, to) => {
      const progress: SyncFacts[] = [];
      const before = await synced(desired(from));
      const number = before[from]?.number?.phone_number;
      const outcome = await syncAgentToPlatforms(desired(to), before, run({ onStep: (facts) => void progress.push(facts) }));
      expect(outcome.kind).toBe('synced');
      expect(progress.length).toBeGreaterThanOrEqual(4);
      const target = platformState(to);
      expect(target.agents).toEqual([{ id: outcome.facts[to]?.platform_agent_id, external_id: 'agt_0123456789abcdef01234567' }]);
      expect(target.numbers).toEqual([expect.objectContaining({ phone_number: number, bound_to: target.agents[0].id })]);
      const old = platformState(from);
      expect(old.agents).toEqual([]);
      expect(old.numbers).toEqual([expect.objectContaining({ phone_number: number, bound_to: null })]);

      // Deleting the agent afterwards releases the number bought on the old platform and unbinds the imported one.
      expect(await synced(desired(to, { status: 'deleted' }), outcome.facts)).toEqual({});
      expect(platformState(from)).toEqual({ agents: [], numbers: [] });
      expect(platformState(to)).toEqual({ agents: [], numbers: [expect.objectContaining({ phone_number: number, bound_to: null })] });
    },
  );
});

describe('missing integration', () => {
  it('→ permanent platform_not_configured', async () => {
    const outcome = await syncAgentToPlatforms(desired('platform_a'), {}, run({ connectionFor: () => undefined }));
    expect(outcome).toMatchObject({ kind: 'failed', error: { code: 'platform_not_configured' } });
  });
});
