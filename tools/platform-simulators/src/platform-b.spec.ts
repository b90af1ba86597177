import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PlatformBSimulator } from './platform-b/platform-b-simulator.js';
import { send } from './spec-support.js';

const KEY = 'key-b';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let simulator: PlatformBSimulator;
let base: string;

beforeAll(async () => {
  simulator = await PlatformBSimulator.start({ apiKeys: [KEY] });
  base = simulator.url;
});
afterAll(() => simulator.stop());
beforeEach(() => simulator.reset());

const call = (method: string, path: string, body?: unknown) => send(base, method, path, { key: KEY, body });

const FULL_ASSISTANT = {
  name: 'Front desk',
  firstMessage: 'Hello, this is the bakery.',
  model: { messages: [{ role: 'system', content: 'You answer the phone for a bakery.' }] },
  voice: { voiceId: 'pb-voice-warm' },
  transcriber: { language: 'en' },
  forwardingPhoneNumber: '+14155550111',
  server: { url: 'https://hooks.example.com/platform-b' },
  metadata: { externalId: 'agt_1', tenant: 'acme', nested: { allowed: true } },
};

describe('platform_b assistants', () => {
  it('creates an assistant with a uuid and ISO 8601 timestamps, returning every field', async () => {
    const created = await call('POST', '/assistant', FULL_ASSISTANT);

    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...FULL_ASSISTANT, id: expect.stringMatching(UUID), createdAt: expect.stringMatching(ISO_8601), updatedAt: expect.stringMatching(ISO_8601) });
  });

  it('uses pb-voice-default when voice is absent, and leaves absent fields out', async () => {
    const created = await call('POST', '/assistant', { name: 'Bare' });

    expect(created.body).toEqual({ id: expect.any(String), name: 'Bare', voice: { voiceId: 'pb-voice-default' }, createdAt: expect.any(String), updatedAt: expect.any(String) });
  });

  it('gets an assistant by id, and 404 with the platform error body for an unknown id', async () => {
    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);

    expect(await call('GET', `/assistant/${assistant.id}`)).toMatchObject({ status: 200, body: assistant });
    const missing = await call('GET', '/assistant/7d8a3f5e-0000-4000-8000-000000000000');
    expect(missing).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found', message: expect.stringContaining('7d8a3f5e') } });
  });

  it('finds assistants by externalId as a bare array matching metadata.externalId exactly', async () => {
    const { body: wanted } = await call('POST', '/assistant', { ...FULL_ASSISTANT, metadata: { externalId: 'ext-42' } });
    await call('POST', '/assistant', { ...FULL_ASSISTANT, metadata: { externalId: 'ext-420' } });
    await call('POST', '/assistant', { ...FULL_ASSISTANT, metadata: { external_id: 'ext-42' } });

    expect(await call('GET', '/assistant?externalId=ext-42')).toMatchObject({ status: 200, body: [wanted] });
    expect((await call('GET', '/assistant?externalId=nobody')).body).toEqual([]);
    expect((await call('GET', '/assistant')).body).toHaveLength(3);
  });

  it('patches any subset, replacing nested objects whole; null removes a field; updatedAt moves forward', async () => {
    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);

    const patched = await call('PATCH', `/assistant/${assistant.id}`, { firstMessage: 'Hi!', server: { url: 'https://hooks.example.com/v2' }, forwardingPhoneNumber: null });

    expect(patched.status).toBe(200);
    const { forwardingPhoneNumber: _removed, ...rest } = assistant;
    expect(patched.body).toEqual({ ...rest, firstMessage: 'Hi!', server: { url: 'https://hooks.example.com/v2' }, updatedAt: expect.any(String) });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThan(Date.parse(assistant.updatedAt));
    expect(patched.body.createdAt).toBe(assistant.createdAt);
    expect((await call('PATCH', '/assistant/7d8a3f5e-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
  });

  it('deletes with 200 and the deleted assistant, after which it is 404', async () => {
    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);

    expect(await call('DELETE', `/assistant/${assistant.id}`)).toMatchObject({ status: 200, body: assistant });
    expect((await call('GET', `/assistant/${assistant.id}`)).status).toBe(404);
    expect((await call('DELETE', `/assistant/${assistant.id}`)).status).toBe(404);
    expect(simulator.agents()).toEqual([]);
  });

  it.each([
    ['name', 40],
    ['firstMessage', 1_000],
  ])('accepts %s of exactly %i characters and refuses one more with 400', async (field, limit) => {
    expect((await call('POST', '/assistant', { [field]: 'ü'.repeat(limit) })).status).toBe(201);

    const refused = await call('POST', '/assistant', { [field]: 'ü'.repeat(limit + 1) });

    expect(refused).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: [`${field} must be shorter than or equal to ${limit} characters`] } });
  });

  it('refuses an unknown voice with the documented body, on create and on patch', async () => {
    const documented = { statusCode: 400, error: 'Bad Request', message: ['voice.voiceId must be a known voice'] };
    expect(await call('POST', '/assistant', { ...FULL_ASSISTANT, voice: { voiceId: 'x' } })).toMatchObject({ status: 400, body: documented });

    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);
    expect((await call('PATCH', `/assistant/${assistant.id}`, { voice: { voiceId: 'y' } })).body).toEqual(documented);
    expect(simulator.agents()[0].voice).toEqual({ voiceId: 'pb-voice-warm' });
  });

  it('lists every problem of a body at once, unknown properties included', async () => {
    const refused = await call('POST', '/assistant', {
      name: 'n'.repeat(41),
      agent_name: 'wrong family',
      transcriber: { language: 'en-US' },
      model: { messages: [{ role: 'wizard', content: 3 }] },
      forwardingPhoneNumber: '555-0111',
      server: { url: 'nowhere' },
      metadata: 'text',
    });

    expect(refused.status).toBe(400);
    expect(refused.body.message).toEqual(
      expect.arrayContaining([
        'property agent_name should not exist',
        'name must be shorter than or equal to 40 characters',
        'transcriber.language must be an ISO 639-1 code',
        'model.messages.0.role must be one of the following values: system, user, assistant',
        'model.messages.0.content must be a string',
        'forwardingPhoneNumber must be a valid E.164 phone number',
        'server.url must be a URL address',
        'metadata must be an object',
      ]),
    );
    expect(simulator.agents()).toEqual([]);
  });

  it('answers 400 for a body that is not JSON, and 404 for a route it does not have', async () => {
    expect(await send(base, 'POST', '/assistant', { key: KEY, rawBody: '{' })).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
    expect(await call('GET', '/assistants')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
  });
});

describe('platform_b bearer key', () => {
  it('answers 401 with the platform error body without a key, with a wrong one, and changes nothing', async () => {
    const missing = await send(base, 'POST', '/assistant', { key: null, body: FULL_ASSISTANT });
    const wrong = await send(base, 'POST', '/assistant', { key: 'key-a', body: FULL_ASSISTANT });

    expect(missing).toMatchObject({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: expect.any(String) } });
    expect(wrong).toMatchObject({ status: 401, body: { statusCode: 401, error: 'Unauthorized' } });
    expect(simulator.agents()).toEqual([]);
  });
});

describe('platform_b phone numbers', () => {
  it('buys a fresh number by areaCode: 201 { id (uuid), number, assistantId }', async () => {
    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);

    const first = await call('POST', '/phone-number', { areaCode: '646', assistantId: assistant.id });
    const second = await call('POST', '/phone-number', { areaCode: '646' });

    expect(first).toMatchObject({ status: 201, body: { id: expect.stringMatching(UUID), number: expect.stringMatching(/^\+1646[2-9]\d{6}$/), assistantId: assistant.id } });
    expect(Object.keys(first.body).sort()).toEqual(['assistantId', 'id', 'number']);
    expect(second.body).toEqual({ id: expect.stringMatching(UUID), number: expect.stringMatching(/^\+1646\d{7}$/), assistantId: null });
    expect(second.body.number).not.toBe(first.body.number);
  });

  it('imports a number, and 400 when it is already registered', async () => {
    const imported = await call('POST', '/phone-number', { number: '+14155550123' });
    const again = await call('POST', '/phone-number', { number: '+14155550123', assistantId: null });

    expect(imported).toMatchObject({ status: 201, body: { number: '+14155550123', assistantId: null } });
    expect(again).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: expect.stringContaining('+14155550123') } });
    expect(simulator.phoneNumbers()).toHaveLength(1);
  });

  it('refuses neither or both of number and areaCode, malformed values and an unknown assistant', async () => {
    expect((await call('POST', '/phone-number', {})).status).toBe(400);
    expect((await call('POST', '/phone-number', { number: '+14155550123', areaCode: '415' })).status).toBe(400);
    expect((await call('POST', '/phone-number', { number: '4155550123' })).status).toBe(400);
    expect((await call('POST', '/phone-number', { areaCode: '4150' })).status).toBe(400);
    const unknownAssistant = await call('POST', '/phone-number', { areaCode: '415', assistantId: 'nobody' });
    expect(unknownAssistant.body.message).toEqual(['assistantId nobody does not name an existing assistant']);
    expect(simulator.phoneNumbers()).toEqual([]);
  });

  it('binds and unbinds with PATCH /phone-number/{id}, 404 for an unknown id', async () => {
    const { body: assistant } = await call('POST', '/assistant', FULL_ASSISTANT);
    const { body: number } = await call('POST', '/phone-number', { number: '+14155550123' });

    expect(await call('PATCH', `/phone-number/${number.id}`, { assistantId: assistant.id })).toMatchObject({ status: 200, body: { ...number, assistantId: assistant.id } });
    expect(simulator.phoneNumbers()).toEqual([{ ...number, assistantId: assistant.id }]);

    expect((await call('PATCH', `/phone-number/${number.id}`, { assistantId: null })).body.assistantId).toBeNull();
    expect(simulator.phoneNumbers()[0].assistantId).toBeNull();
    expect((await call('PATCH', '/phone-number/7d8a3f5e-0000-4000-8000-000000000000', { assistantId: null })).status).toBe(404);
  });

  it('releases with DELETE 200, after which the number is gone', async () => {
    const { body: number } = await call('POST', '/phone-number', { areaCode: '720' });

    expect(await call('DELETE', `/phone-number/${number.id}`)).toMatchObject({ status: 200, body: number });
    expect(simulator.phoneNumbers()).toEqual([]);
    expect((await call('DELETE', `/phone-number/${number.id}`)).status).toBe(404);
  });

  it('answers 400 when no number is available in the area', async () => {
    simulator.faults.noNumbersAvailable('646');

    const refused = await call('POST', '/phone-number', { areaCode: '646' });

    expect(refused).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: expect.stringContaining('646') } });
    expect((await call('POST', '/phone-number', { areaCode: '720' })).status).toBe(201);
  });
});
