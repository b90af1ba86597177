import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, PlatformASimulator } from '@voice/platform-simulators';
import { ManagementAdapter } from '../management-adapter.js';
import { PLATFORM_A_MANAGEMENT } from './management.js';
import { failure, settled } from '../testing/platform-calls.js';
import type { PlatformAgentSpec, PlatformConnection } from '../voice-platform.port.js';

let simulator: PlatformASimulator;
let connection: PlatformConnection;
const adapter = new ManagementAdapter(PLATFORM_A_MANAGEMENT, { allowPrivate: true, timeoutMs: 1000 });

const spec: PlatformAgentSpec = {
  external_id: 'agt_aaaaaaaaaaaaaaaaaaaaaaaa',
  name: 'Front desk',
  system_prompt: 'You answer calls for a dental practice.',
  welcome_message: 'Hello, how can I help?',
  voice_id: 'pa-voice-warm',
  language: 'en-US',
  transfer_number: '+14155550123',
  webhook_url: 'https://hooks.example/platform_a',
};

/** Waits until the simulator has finished every (delayed) answer, so none outlives the test. */
const simulatorSettled = () => settled(simulator);

beforeAll(async () => {
  simulator = await PlatformASimulator.start();
  connection = { baseUrl: simulator.url, apiKey: DEFAULT_API_KEY };
});

afterAll(async () => {
  await simulator?.stop();
});

beforeEach(() => simulator.reset());

describe('platform_a adapter: agents', () => {
  it('creates an agent with every field mapped, finds it by our id, updates only what changed, deletes it', async () => {
    const { platform_agent_id } = await adapter.createAgent(connection, spec);
    expect(simulator.agents()).toEqual([
      expect.objectContaining({
        agent_id: platform_agent_id,
        agent_name: 'Front desk',
        voice_id: 'pa-voice-warm',
        language: 'en-US',
        prompt: spec.system_prompt,
        begin_message: spec.welcome_message,
        transfer_number: '+14155550123',
        webhook_url: spec.webhook_url,
        metadata: { external_id: spec.external_id },
      }),
    ]);

    expect(await adapter.findAgentByExternalId(connection, spec.external_id)).toEqual({ platform_agent_id });
    expect(await adapter.findAgentByExternalId(connection, 'agt_somebody_else')).toBeUndefined();

    simulator.clearRequests();
    await adapter.updateAgent(connection, { platform_agent_id, external_id: spec.external_id }, { name: 'Reception', transfer_number: null });
    expect(simulator.requests()).toEqual([expect.objectContaining({ method: 'PATCH', body: { agent_name: 'Reception', transfer_number: null } })]);
    expect(simulator.agents()[0]).toMatchObject({ agent_name: 'Reception', transfer_number: null, prompt: spec.system_prompt });

    await adapter.deleteAgent(connection, platform_agent_id);
    expect(simulator.agents()).toEqual([]);
    expect(await adapter.findAgentByExternalId(connection, spec.external_id)).toBeUndefined();
  });

  it('sends nothing for an update without changes', async () => {
    await adapter.updateAgent(connection, { platform_agent_id: 'agent_x', external_id: spec.external_id }, {});
    expect(simulator.requests()).toEqual([]);
  });

  it('treats deleting an agent the platform no longer has as done, and updating it as not_found', async () => {
    await expect(adapter.deleteAgent(connection, 'agent_0000')).resolves.toBeUndefined();
    const error = await failure(adapter.updateAgent(connection, { platform_agent_id: 'agent_0000', external_id: spec.external_id }, { name: 'x' }));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('an unknown voice → rejected, naming our voice_id field', async () => {
    const error = await failure(adapter.createAgent(connection, { ...spec, voice_id: 'no-such-voice' }));
    expect(error).toMatchObject({ kind: 'rejected', field: 'voice_id', status: 422 });
    expect(error.message).toContain("voice_id 'no-such-voice' does not exist");
  });
});

describe('platform_a adapter: phone numbers', () => {
  it('buys a number bound to an agent, rebinds and unbinds it, releases it', async () => {
    const { platform_agent_id } = await adapter.createAgent(connection, spec);
    const bought = await adapter.acquireNumber(connection, { area_code: '415', platform_agent_id });
    expect(bought).toMatchObject({ purchased: true, platform_number_id: bought.phone_number });
    expect(bought.phone_number).toMatch(/^\+1415\d{7}$/);
    expect(simulator.phoneNumbers()).toEqual([{ phone_number: bought.phone_number, inbound_agent_id: platform_agent_id, purchased: true }]);

    await adapter.bindNumber(connection, bought, null);
    expect(simulator.phoneNumbers()[0].inbound_agent_id).toBeNull();
    await adapter.bindNumber(connection, bought, platform_agent_id);
    expect(simulator.phoneNumbers()[0].inbound_agent_id).toBe(platform_agent_id);

    await adapter.releaseNumber(connection, bought);
    expect(simulator.phoneNumbers()).toEqual([]);
    await expect(adapter.releaseNumber(connection, bought)).resolves.toBeUndefined();
  });

  it('buys in any area when none is named', async () => {
    expect(await adapter.acquireNumber(connection, { platform_agent_id: null })).toMatchObject({ purchased: true });
  });

  it('imports a number the customer owns, and forgets it on release', async () => {
    const imported = await adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null });
    expect(imported).toEqual({ phone_number: '+14155550100', platform_number_id: '+14155550100', purchased: false });
    await adapter.releaseNumber(connection, imported);
    expect(simulator.phoneNumbers()).toEqual([]);
  });

  it('a number already registered → number_in_use', async () => {
    await adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null });
    const error = await failure(adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null }));
    expect(error).toMatchObject({ kind: 'number_in_use', status: 409, field: 'phone_number' });
  });

  it('no number available → number_unavailable', async () => {
    simulator.faults.noNumbersAvailable('212');
    expect(await failure(adapter.acquireNumber(connection, { area_code: '212', platform_agent_id: null }))).toMatchObject({ kind: 'number_unavailable', status: 422 });
  });

  it('binding a number the platform does not have → not_found', async () => {
    const error = await failure(adapter.bindNumber(connection, { phone_number: '+14155550111', platform_number_id: '+14155550111' }, null));
    expect(error.kind).toBe('not_found');
  });
});

describe('platform_a adapter: failures', () => {
  it('checks credentials with one cheap read', async () => {
    await adapter.verifyCredentials(connection);
    expect(simulator.requests()).toEqual([expect.objectContaining({ method: 'GET', path: '/v2/agents' })]);
  });

  it('a wrong or revoked key → invalid_credentials', async () => {
    expect(await failure(adapter.verifyCredentials({ ...connection, apiKey: 'wrong' }))).toMatchObject({ kind: 'invalid_credentials', status: 401 });
    simulator.faults.revokeKeys();
    expect(await failure(adapter.createAgent(connection, spec))).toMatchObject({ kind: 'invalid_credentials' });
  });

  it('429 → transient with Retry-After in ms', async () => {
    simulator.faults.rateLimit({ count: 1, retryAfterSeconds: 2 });
    const error = await failure(adapter.createAgent(connection, spec));
    expect(error).toMatchObject({ kind: 'transient', status: 429, retryAfterMs: 2000, retryable: true });
  });

  it('5xx → transient', async () => {
    simulator.faults.serverError({ count: 1, status: 503 });
    expect(await failure(adapter.findAgentByExternalId(connection, spec.external_id))).toMatchObject({ kind: 'transient', status: 503 });
  });

  it('a platform slower than the deadline → transient', async () => {
    simulator.faults.delay(400);
    const fast = new ManagementAdapter(PLATFORM_A_MANAGEMENT, { allowPrivate: true, timeoutMs: 150 });
    const error = await failure(fast.verifyCredentials(connection));
    expect(error.kind).toBe('transient');
    expect(error.message).toContain('150 ms');
    await simulatorSettled();
  });

  it('a platform that drops connections or refuses them → transient', async () => {
    await simulator.down('reset');
    expect((await failure(adapter.verifyCredentials(connection))).kind).toBe('transient');
    await simulator.down('refuse');
    expect((await failure(adapter.verifyCredentials(connection))).kind).toBe('transient');
    await simulator.up();
  });

  it('without ALLOW_PRIVATE_PLATFORM_URLS a base URL on 127.0.0.1 is refused before any request', async () => {
    const guarded = new ManagementAdapter(PLATFORM_A_MANAGEMENT);
    const error = await failure(guarded.createAgent(connection, spec));
    expect(error).toMatchObject({ kind: 'base_url_refused', field: 'base_url' });
    expect(simulator.requests()).toEqual([]);
  });
});

describe('platform_a adapter: listings (what the reconciliation reads)', () => {
  it('lists every agent and number over several pages, in our terms; an agent as we made it reads as our spec stores', async () => {
    const made: string[] = [];
    for (let i = 0; i < 27; i++) {
      const { platform_agent_id } = await adapter.createAgent(connection, { ...spec, external_id: `agt_list_${i}`, system_prompt: null });
      made.push(platform_agent_id);
      if (i < 3) await adapter.acquireNumber(connection, { phone_number: `+1646555010${i}`, platform_agent_id: i === 0 ? platform_agent_id : null });
    }
    simulator.clearRequests();
    const agents = await adapter.listAgents(connection);
    expect(agents.map((agent) => agent.platform_agent_id).sort()).toEqual([...made].sort());
    expect(simulator.requests().map((r) => r.query)).toEqual(['limit=25', expect.stringMatching(/^limit=25&pagination_key=agent_/)]);
    const first = agents.find((agent) => agent.platform_agent_id === made[0])!;
    expect(first).toEqual({ platform_agent_id: made[0], external_id: 'agt_list_0', fields: adapter.storedFields({ ...spec, external_id: 'agt_list_0', system_prompt: null }) });

    expect(await adapter.listNumbers(connection)).toEqual([
      { phone_number: '+16465550100', platform_number_id: '+16465550100', bound_to: made[0] },
      { phone_number: '+16465550101', platform_number_id: '+16465550101', bound_to: null },
      { phone_number: '+16465550102', platform_number_id: '+16465550102', bound_to: null },
    ]);
  });

  it('a failing listing is a PlatformCallFailed (transient with Retry-After on 429; a wrong key is invalid_credentials)', async () => {
    simulator.faults.rateLimit({ count: 1, retryAfterSeconds: 2 });
    expect(await failure(adapter.listAgents(connection))).toMatchObject({ kind: 'transient', retryAfterMs: 2_000 });
    expect((await failure(adapter.listNumbers({ ...connection, apiKey: 'wrong' }))).kind).toBe('invalid_credentials');
  });
});
