import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, PlatformBSimulator } from '@voice/platform-simulators';
import { platformBName } from './agent-fields.js';
import { ManagementAdapter } from '../management-adapter.js';
import { PLATFORM_B_MANAGEMENT } from './management.js';
import { failure, settled } from '../testing/platform-calls.js';
import type { PlatformAgentSpec, PlatformConnection } from '../voice-platform.port.js';

let simulator: PlatformBSimulator;
let connection: PlatformConnection;
const adapter = new ManagementAdapter(PLATFORM_B_MANAGEMENT, { allowPrivate: true, timeoutMs: 1000 });

const spec: PlatformAgentSpec = {
  external_id: 'agt_bbbbbbbbbbbbbbbbbbbbbbbb',
  name: 'Front desk',
  system_prompt: 'You answer calls for a dental practice.',
  welcome_message: 'Hello, how can I help?',
  voice_id: 'pb-voice-warm',
  language: 'en-US',
  transfer_number: '+14155550123',
  webhook_url: 'https://hooks.example/platform_b',
};

/** Waits until the simulator has finished every (delayed) answer, so none outlives the test. */
const simulatorSettled = () => settled(simulator);

beforeAll(async () => {
  simulator = await PlatformBSimulator.start();
  connection = { baseUrl: simulator.url, apiKey: DEFAULT_API_KEY };
});

afterAll(async () => {
  await simulator?.stop();
});

beforeEach(() => simulator.reset());

describe('platform_b adapter: assistants', () => {
  it('creates an assistant with every field mapped, finds it by our id, updates only what changed, deletes it', async () => {
    const { platform_agent_id } = await adapter.createAgent(connection, spec);
    expect(simulator.agents()).toEqual([
      expect.objectContaining({
        id: platform_agent_id,
        name: 'Front desk',
        firstMessage: spec.welcome_message,
        model: { messages: [{ role: 'system', content: spec.system_prompt }] },
        voice: { voiceId: 'pb-voice-warm' },
        transcriber: { language: 'en' },
        forwardingPhoneNumber: '+14155550123',
        server: { url: spec.webhook_url },
        metadata: { externalId: spec.external_id },
      }),
    ]);

    expect(await adapter.findAgentByExternalId(connection, spec.external_id)).toEqual({ platform_agent_id });
    expect(await adapter.findAgentByExternalId(connection, 'agt_somebody_else')).toBeUndefined();

    simulator.clearRequests();
    await adapter.updateAgent(connection, { platform_agent_id, external_id: spec.external_id }, { welcome_message: null, system_prompt: 'Be brief.' });
    expect(simulator.requests()).toEqual([
      expect.objectContaining({ method: 'PATCH', body: { firstMessage: null, model: { messages: [{ role: 'system', content: 'Be brief.' }] } } }),
    ]);
    const [updated] = simulator.agents();
    expect(updated).not.toHaveProperty('firstMessage');
    expect(updated).toMatchObject({ name: 'Front desk', voice: { voiceId: 'pb-voice-warm' } });

    await adapter.deleteAgent(connection, platform_agent_id);
    expect(simulator.agents()).toEqual([]);
    expect(await adapter.findAgentByExternalId(connection, spec.external_id)).toBeUndefined();
  });

  it('shortens a long name without collision, on create and on rename', async () => {
    const long = 'Customer support line for the downtown dental practice, evenings';
    const first = await adapter.createAgent(connection, { ...spec, name: long });
    await adapter.createAgent(connection, { ...spec, external_id: 'agt_cccccccccccccccccccccccc', name: long });
    const names = simulator.agents().map((assistant) => assistant.name);
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect(Array.from(name ?? '').length).toBeLessThanOrEqual(40);

    const longer = `${long} and weekends`;
    await adapter.updateAgent(connection, { platform_agent_id: first.platform_agent_id, external_id: spec.external_id }, { name: longer });
    expect(simulator.agents().find((assistant) => assistant.id === first.platform_agent_id)?.name).toBe(platformBName(longer, spec.external_id));
  });

  it('creates without a prompt, welcome message or transfer number', async () => {
    await adapter.createAgent(connection, { ...spec, system_prompt: null, welcome_message: null, transfer_number: null, language: 'fr' });
    const [assistant] = simulator.agents();
    expect(assistant).toMatchObject({ model: { messages: [] }, transcriber: { language: 'fr' } });
    expect(assistant).not.toHaveProperty('forwardingPhoneNumber');
  });

  it('treats deleting an assistant the platform no longer has as done, and updating it as not_found', async () => {
    await expect(adapter.deleteAgent(connection, '00000000-0000-4000-8000-000000000000')).resolves.toBeUndefined();
    const error = await failure(adapter.updateAgent(connection, { platform_agent_id: '00000000-0000-4000-8000-000000000000', external_id: spec.external_id }, { name: 'x' }));
    expect(error).toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('an unknown voice → rejected, naming our voice_id field', async () => {
    const error = await failure(adapter.createAgent(connection, { ...spec, voice_id: 'no-such-voice' }));
    expect(error).toMatchObject({ kind: 'rejected', field: 'voice_id', status: 400 });
    expect(error.message).toContain('voice.voiceId must be a known voice');
  });
});

describe('platform_b adapter: phone numbers', () => {
  it('buys a number bound to an assistant, rebinds and unbinds it, releases it', async () => {
    const { platform_agent_id } = await adapter.createAgent(connection, spec);
    const bought = await adapter.acquireNumber(connection, { area_code: '212', platform_agent_id });
    expect(bought.purchased).toBe(true);
    expect(bought.phone_number).toMatch(/^\+1212\d{7}$/);
    expect(simulator.phoneNumbers()).toEqual([{ id: bought.platform_number_id, number: bought.phone_number, assistantId: platform_agent_id }]);

    await adapter.bindNumber(connection, bought, null);
    expect(simulator.phoneNumbers()[0].assistantId).toBeNull();
    await adapter.bindNumber(connection, bought, platform_agent_id);
    expect(simulator.phoneNumbers()[0].assistantId).toBe(platform_agent_id);

    await adapter.releaseNumber(connection, bought);
    expect(simulator.phoneNumbers()).toEqual([]);
    await expect(adapter.releaseNumber(connection, bought)).resolves.toBeUndefined();
  });

  it('refuses to buy without an area code, without calling the platform', async () => {
    expect(await failure(adapter.acquireNumber(connection, { platform_agent_id: null }))).toMatchObject({ kind: 'rejected', field: 'area_code' });
    expect(simulator.requests()).toEqual([]);
  });

  it('imports a number the customer owns, and forgets it on release', async () => {
    const imported = await adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null });
    expect(imported).toMatchObject({ phone_number: '+14155550100', purchased: false });
    await adapter.releaseNumber(connection, imported);
    expect(simulator.phoneNumbers()).toEqual([]);
  });

  it('a number already registered → number_in_use', async () => {
    await adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null });
    const error = await failure(adapter.acquireNumber(connection, { phone_number: '+14155550100', platform_agent_id: null }));
    expect(error).toMatchObject({ kind: 'number_in_use', status: 400, field: 'phone_number' });
  });

  it('no number available → number_unavailable', async () => {
    simulator.faults.noNumbersAvailable('212');
    expect(await failure(adapter.acquireNumber(connection, { area_code: '212', platform_agent_id: null }))).toMatchObject({ kind: 'number_unavailable', status: 400 });
  });

  it('binding a number the platform does not have → not_found', async () => {
    const ref = { phone_number: '+14155550111', platform_number_id: '00000000-0000-4000-8000-000000000000' };
    expect((await failure(adapter.bindNumber(connection, ref, null))).kind).toBe('not_found');
  });
});

describe('platform_b adapter: failures', () => {
  it('checks credentials with one cheap read', async () => {
    await adapter.verifyCredentials(connection);
    expect(simulator.requests()).toEqual([expect.objectContaining({ method: 'GET', path: '/assistant' })]);
  });

  it('a wrong or revoked key → invalid_credentials', async () => {
    expect(await failure(adapter.verifyCredentials({ ...connection, apiKey: 'wrong' }))).toMatchObject({ kind: 'invalid_credentials', status: 401 });
    simulator.faults.revokeKeys();
    expect(await failure(adapter.createAgent(connection, spec))).toMatchObject({ kind: 'invalid_credentials' });
  });

  it('429 → transient with Retry-After in ms', async () => {
    simulator.faults.rateLimit({ count: 1, retryAfterSeconds: 3 });
    const error = await failure(adapter.acquireNumber(connection, { area_code: '212', platform_agent_id: null }));
    expect(error).toMatchObject({ kind: 'transient', status: 429, retryAfterMs: 3000 });
  });

  it('5xx → transient', async () => {
    simulator.faults.serverError({ count: 1, status: 502 });
    expect(await failure(adapter.deleteAgent(connection, 'x'))).toMatchObject({ kind: 'transient', status: 502 });
  });

  it('a platform slower than the deadline → transient', async () => {
    simulator.faults.delay(400);
    const fast = new ManagementAdapter(PLATFORM_B_MANAGEMENT, { allowPrivate: true, timeoutMs: 150 });
    const error = await failure(fast.createAgent(connection, spec));
    expect(error.kind).toBe('transient');
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
    const error = await failure(new ManagementAdapter(PLATFORM_B_MANAGEMENT).verifyCredentials(connection));
    expect(error).toMatchObject({ kind: 'base_url_refused', field: 'base_url' });
    expect(simulator.requests()).toEqual([]);
  });
});

describe('platform_b adapter: listings (what the reconciliation reads)', () => {
  it('lists every assistant and number over several pages, in our terms; an assistant as we made it reads as our spec stores', async () => {
    const made: string[] = [];
    for (let i = 0; i < 27; i++) {
      const long = { ...spec, external_id: `agt_list_${i}`, name: `${'A rather long assistant name, over forty'} ${i}` };
      const { platform_agent_id } = await adapter.createAgent(connection, long);
      made.push(platform_agent_id);
      if (i < 3) await adapter.acquireNumber(connection, { area_code: '415', platform_agent_id: i === 0 ? platform_agent_id : null });
    }
    simulator.clearRequests();
    const agents = await adapter.listAgents(connection);
    expect(agents.map((agent) => agent.platform_agent_id).sort()).toEqual([...made].sort());
    expect(simulator.requests().map((r) => r.query)).toEqual([expect.stringMatching(/^limit=25$/), expect.stringMatching(/^limit=25&after=/)]);
    const first = agents.find((agent) => agent.platform_agent_id === made[0])!;
    expect(first.external_id).toBe('agt_list_0');
    expect(first.fields).toEqual(adapter.storedFields({ ...spec, external_id: 'agt_list_0', name: 'A rather long assistant name, over forty 0' }));

    const numbers = await adapter.listNumbers(connection);
    expect(numbers).toHaveLength(3);
    expect(numbers.filter((number) => number.bound_to === made[0])).toHaveLength(1);
    expect(numbers.every((number) => number.platform_number_id !== number.phone_number)).toBe(true);
  });

  it('a failing listing is a PlatformCallFailed (transient on 5xx, with Retry-After on 429)', async () => {
    simulator.faults.rateLimit({ count: 1, retryAfterSeconds: 3 });
    const limited = await failure(adapter.listAgents(connection));
    expect(limited).toMatchObject({ kind: 'transient', retryAfterMs: 3_000 });
    simulator.faults.serverError({ count: 1 });
    expect((await failure(adapter.listNumbers(connection))).kind).toBe('transient');
  });
});
