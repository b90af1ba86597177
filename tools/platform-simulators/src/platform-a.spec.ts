import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PlatformASimulator } from './platform-a/platform-a-simulator.js';
import { send } from './spec-support.js';

const KEY = 'key-a';
let simulator: PlatformASimulator;
let base: string;

beforeAll(async () => {
  simulator = await PlatformASimulator.start({ apiKeys: [KEY, 'second-key-a'] });
  base = simulator.url;
});
afterAll(() => simulator.stop());
beforeEach(() => simulator.reset());

const call = (method: string, path: string, body?: unknown) => send(base, method, path, { key: KEY, body });

const FULL_AGENT = {
  agent_name: 'Front desk',
  voice_id: 'pa-voice-warm',
  language: 'en-GB',
  prompt: 'You answer the phone for a bakery.',
  begin_message: 'Hello, this is the bakery.',
  transfer_number: '+14155550111',
  webhook_url: 'https://hooks.example.com/platform-a',
  metadata: { external_id: 'agt_1', tenant: 'acme' },
};

describe('platform_a agents', () => {
  it('creates an agent with an agent_ + 32 hex id and returns every field', async () => {
    const before = Date.now();
    const created = await call('POST', '/v2/agents', FULL_AGENT);

    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...FULL_AGENT, agent_id: expect.stringMatching(/^agent_[0-9a-f]{32}$/), last_modified_timestamp: expect.any(Number) });
    expect(created.body.last_modified_timestamp).toBeGreaterThanOrEqual(before);
  });

  it('uses pa-voice-default when voice_id is absent and accepts a bare ISO 639-1 language', async () => {
    const created = await call('POST', '/v2/agents', { agent_name: 'Bare', language: 'de' });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ voice_id: 'pa-voice-default', language: 'de', transfer_number: null, metadata: {} });
  });

  it('gets an agent by id, and 404 with the platform error body for an unknown id', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);

    expect(await call('GET', `/v2/agents/${agent.agent_id}`)).toMatchObject({ status: 200, body: agent });
    const missing = await call('GET', '/v2/agents/agent_00000000000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ status: 404, error_message: expect.stringContaining('agent_00000000000000000000000000000000') });
  });

  it('finds agents by metadata.external_id, exact match only, as { items }', async () => {
    const { body: wanted } = await call('POST', '/v2/agents', { ...FULL_AGENT, metadata: { external_id: 'ext-42' } });
    await call('POST', '/v2/agents', { ...FULL_AGENT, metadata: { external_id: 'ext-420' } });
    await call('POST', '/v2/agents', { ...FULL_AGENT, metadata: {} });

    expect(await call('GET', '/v2/agents?metadata.external_id=ext-42')).toMatchObject({ status: 200, body: { items: [wanted] } });
    expect((await call('GET', '/v2/agents?metadata.external_id=nobody')).body).toEqual({ items: [] });
    expect((await call('GET', '/v2/agents')).body.items).toHaveLength(3);
  });

  it('patches any subset of fields, replaces metadata as a whole and moves last_modified_timestamp forward', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);

    const patched = await call('PATCH', `/v2/agents/${agent.agent_id}`, { prompt: 'New prompt', transfer_number: null, metadata: { external_id: 'agt_1' } });

    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...agent, prompt: 'New prompt', transfer_number: null, metadata: { external_id: 'agt_1' }, last_modified_timestamp: expect.any(Number) });
    expect(patched.body.last_modified_timestamp).toBeGreaterThan(agent.last_modified_timestamp);
    expect((await call('GET', `/v2/agents/${agent.agent_id}`)).body.prompt).toBe('New prompt');
    expect((await call('PATCH', '/v2/agents/agent_00000000000000000000000000000000', { prompt: 'x' })).status).toBe(404);
  });

  it('deletes with 204, after which the agent is 404 and no longer listed', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);

    const deleted = await call('DELETE', `/v2/agents/${agent.agent_id}`);

    expect(deleted).toMatchObject({ status: 204, body: undefined });
    expect((await call('GET', `/v2/agents/${agent.agent_id}`)).status).toBe(404);
    expect(simulator.agents()).toEqual([]);
    expect((await call('DELETE', `/v2/agents/${agent.agent_id}`)).status).toBe(404);
  });

  it.each([
    ['agent_name', 100],
    ['prompt', 32_000],
    ['begin_message', 1_000],
  ])('accepts %s of exactly %i characters and refuses one more with 422', async (field, limit) => {
    expect((await call('POST', '/v2/agents', { [field]: 'é'.repeat(limit) })).status).toBe(201);

    const refused = await call('POST', '/v2/agents', { [field]: 'é'.repeat(limit + 1) });

    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ status: 422, error_message: expect.stringContaining(field) });
  });

  it('counts characters, not UTF-16 units: 100 emoji are a valid agent_name', async () => {
    expect((await call('POST', '/v2/agents', { agent_name: '📞'.repeat(100) })).status).toBe(201);
  });

  it('refuses an unknown voice with the documented 422 body, on create and on patch', async () => {
    const refused = await call('POST', '/v2/agents', { ...FULL_AGENT, voice_id: 'x' });
    expect(refused).toMatchObject({ status: 422, body: { status: 422, error_message: "voice_id 'x' does not exist" } });

    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);
    expect((await call('PATCH', `/v2/agents/${agent.agent_id}`, { voice_id: 'y' })).body).toEqual({ status: 422, error_message: "voice_id 'y' does not exist" });
    expect(simulator.agents()[0].voice_id).toBe('pa-voice-warm');
  });

  it('accepts the configured voices only', async () => {
    const custom = await PlatformASimulator.start({ apiKeys: [KEY], voices: ['pa-voice-special'] });
    try {
      expect((await send(custom.url, 'POST', '/v2/agents', { key: KEY, body: { voice_id: 'pa-voice-special' } })).status).toBe(201);
      expect((await send(custom.url, 'POST', '/v2/agents', { key: KEY, body: { voice_id: 'pa-voice-warm' } })).status).toBe(422);
      expect(custom.knownVoices()).toEqual(['pa-voice-default', 'pa-voice-special']);
    } finally {
      await custom.stop();
    }
  });

  it.each([
    ['metadata with 21 keys', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) }, 'metadata'],
    ['a metadata value that is not a string', { metadata: { external_id: 7 } }, 'metadata.external_id'],
    ['a transfer_number that is not E.164', { transfer_number: '415-555-0111' }, 'transfer_number'],
    ['a language that is not BCP 47', { language: 'english please' }, 'language'],
    ['a webhook_url that is not a URL', { webhook_url: 'not a url' }, 'webhook_url'],
    ['an unknown field', { name: 'typo for agent_name' }, "unknown field 'name'"],
  ])('refuses %s with 422', async (_case, body, mentioned) => {
    const refused = await call('POST', '/v2/agents', body);

    expect(refused.status).toBe(422);
    expect(refused.body.error_message).toContain(mentioned);
    expect(simulator.agents()).toEqual([]);
  });

  it('accepts metadata with exactly 20 keys', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, 'v']));
    expect((await call('POST', '/v2/agents', { metadata })).status).toBe(201);
  });

  it('answers 400 for a body that is not JSON, and 404 for a route it does not have', async () => {
    expect(await send(base, 'POST', '/v2/agents', { key: KEY, rawBody: '{"agent_name":' })).toMatchObject({ status: 400, body: { status: 400 } });
    expect(await call('GET', '/v1/agents')).toMatchObject({ status: 404, body: { status: 404, error_message: expect.any(String) } });
  });
});

describe('platform_a bearer key', () => {
  it('answers 401 with the platform error body without a key or with a wrong one, and changes nothing', async () => {
    const missing = await send(base, 'POST', '/v2/agents', { key: null, body: FULL_AGENT });
    const wrong = await send(base, 'POST', '/v2/agents', { key: 'not-a-key', body: FULL_AGENT });

    expect(missing).toMatchObject({ status: 401, body: { status: 401, error_message: expect.any(String) } });
    expect(wrong).toMatchObject({ status: 401, body: { status: 401, error_message: expect.any(String) } });
    expect(simulator.agents()).toEqual([]);
  });

  it('accepts every configured key, and the keys can be replaced', async () => {
    expect((await send(base, 'GET', '/v2/agents', { key: 'second-key-a' })).status).toBe(200);

    simulator.setApiKeys(['rotated']);
    try {
      expect((await send(base, 'GET', '/v2/agents', { key: KEY })).status).toBe(401);
      expect((await send(base, 'GET', '/v2/agents', { key: 'rotated' })).status).toBe(200);
    } finally {
      simulator.setApiKeys([KEY, 'second-key-a']);
    }
  });
});

describe('platform_a phone numbers', () => {
  it('buys a fresh E.164 number in the asked area code, bound to the given agent', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);

    const first = await call('POST', '/v2/phone-numbers', { area_code: '415', inbound_agent_id: agent.agent_id });
    const second = await call('POST', '/v2/phone-numbers', { area_code: 415 });

    expect(first).toMatchObject({ status: 201, body: { phone_number: expect.stringMatching(/^\+1415[2-9]\d{6}$/), inbound_agent_id: agent.agent_id, purchased: true } });
    expect(second.body).toEqual({ phone_number: expect.stringMatching(/^\+1415\d{7}$/), inbound_agent_id: null, purchased: true });
    expect(second.body.phone_number).not.toBe(first.body.phone_number);
  });

  it('buys in any area when area_code is absent', async () => {
    const bought = await call('POST', '/v2/phone-numbers', {});
    expect(bought).toMatchObject({ status: 201, body: { phone_number: expect.stringMatching(/^\+1\d{10}$/), purchased: true } });
  });

  it('imports a number the customer owns (purchased: false), and 409 when it is already registered', async () => {
    const imported = await call('POST', '/v2/phone-numbers', { phone_number: '+14155550123', inbound_agent_id: null });
    const again = await call('POST', '/v2/phone-numbers', { phone_number: '+14155550123' });

    expect(imported).toMatchObject({ status: 201, body: { phone_number: '+14155550123', inbound_agent_id: null, purchased: false } });
    expect(again).toMatchObject({ status: 409, body: { status: 409, error_message: expect.stringContaining('+14155550123') } });
    expect(simulator.phoneNumbers()).toHaveLength(1);
  });

  it('refuses a malformed number or area code, both at once, and an agent that does not exist', async () => {
    expect((await call('POST', '/v2/phone-numbers', { phone_number: '4155550123' })).status).toBe(422);
    expect((await call('POST', '/v2/phone-numbers', { area_code: '41' })).status).toBe(422);
    expect((await call('POST', '/v2/phone-numbers', { area_code: '415', phone_number: '+14155550123' })).status).toBe(422);
    expect((await call('POST', '/v2/phone-numbers', { area_code: '415', inbound_agent_id: 'agent_nobody' })).status).toBe(422);
    expect(simulator.phoneNumbers()).toEqual([]);
  });

  it('binds and unbinds a number with PATCH (the path may be URL-encoded), 404 for an unknown number', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);
    await call('POST', '/v2/phone-numbers', { phone_number: '+14155550123' });

    const bound = await call('PATCH', '/v2/phone-numbers/+14155550123', { inbound_agent_id: agent.agent_id });
    expect(bound).toMatchObject({ status: 200, body: { phone_number: '+14155550123', inbound_agent_id: agent.agent_id, purchased: false } });
    expect(simulator.phoneNumbers()).toEqual([{ phone_number: '+14155550123', inbound_agent_id: agent.agent_id, purchased: false }]);

    const unbound = await call('PATCH', '/v2/phone-numbers/%2B14155550123', { inbound_agent_id: null });
    expect(unbound.body.inbound_agent_id).toBeNull();
    expect(simulator.phoneNumbers()[0].inbound_agent_id).toBeNull();

    expect((await call('PATCH', '/v2/phone-numbers/+19995550000', { inbound_agent_id: null })).status).toBe(404);
    expect((await call('PATCH', '/v2/phone-numbers/+14155550123', { inbound_agent_id: 'agent_nobody' })).status).toBe(422);
  });

  it('releases a number with DELETE 204; it can then be imported again', async () => {
    const { body: bought } = await call('POST', '/v2/phone-numbers', { area_code: '212' });

    expect((await call('DELETE', `/v2/phone-numbers/${encodeURIComponent(bought.phone_number)}`)).status).toBe(204);
    expect(simulator.phoneNumbers()).toEqual([]);
    expect((await call('DELETE', `/v2/phone-numbers/${encodeURIComponent(bought.phone_number)}`)).status).toBe(404);
    expect((await call('POST', '/v2/phone-numbers', { phone_number: bought.phone_number })).status).toBe(201);
  });

  it('unbinds the numbers of a deleted agent', async () => {
    const { body: agent } = await call('POST', '/v2/agents', FULL_AGENT);
    await call('POST', '/v2/phone-numbers', { phone_number: '+14155550123', inbound_agent_id: agent.agent_id });

    await call('DELETE', `/v2/agents/${agent.agent_id}`);

    expect(simulator.phoneNumbers()).toEqual([{ phone_number: '+14155550123', inbound_agent_id: null, purchased: false }]);
  });

  it('answers 422 when no number is available in the area, and in any area when switched for all', async () => {
    simulator.faults.noNumbersAvailable('415');

    const refused = await call('POST', '/v2/phone-numbers', { area_code: '415' });
    expect(refused).toMatchObject({ status: 422, body: { status: 422, error_message: expect.stringContaining('415') } });
    expect((await call('POST', '/v2/phone-numbers', { area_code: '212' })).status).toBe(201);
    // Importing is not buying: an owned number can still come in.
    expect((await call('POST', '/v2/phone-numbers', { phone_number: '+14155550123' })).status).toBe(201);

    simulator.faults.noNumbersAvailable();
    expect((await call('POST', '/v2/phone-numbers', { area_code: '212' })).status).toBe(422);
    expect((await call('POST', '/v2/phone-numbers', {})).status).toBe(422);

    simulator.faults.numbersAvailable();
    expect((await call('POST', '/v2/phone-numbers', { area_code: '415' })).status).toBe(201);
  });
});
