import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { PlatformASimulator } from './platform-a/platform-a-simulator.js';
import { PlatformBSimulator } from './platform-b/platform-b-simulator.js';
import { networkFailure, send, tcpConnect } from './spec-support.js';

let platformA: PlatformASimulator;
let platformB: PlatformBSimulator;

beforeAll(async () => {
  platformA = await PlatformASimulator.start();
  platformB = await PlatformBSimulator.start();
});
afterAll(async () => {
  await platformA.stop();
  await platformB.stop();
});
beforeEach(() => {
  platformA.reset();
  platformB.reset();
});

const listA = () => send(platformA.url, 'GET', '/v2/agents');
const listB = () => send(platformB.url, 'GET', '/assistant');
const control = (simulator: PlatformASimulator | PlatformBSimulator, method: string, path: string, body?: unknown) => send(simulator.url, method, `/__sim${path}`, { key: null, body });

describe('rate limit', () => {
  it('answers 429 with Retry-After and the platform error body for the next N requests, then normally', async () => {
    platformA.faults.rateLimit({ count: 2, retryAfterSeconds: 7 });

    const first = await listA();
    const second = await listA();
    const third = await listA();

    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(first.body).toEqual({ status: 429, error_message: expect.any(String) });
    expect(second.status).toBe(429);
    expect(third.status).toBe(200);
  });

  it('answers 429 to every request until cleared when no count is given, in platform_b error shape', async () => {
    platformB.faults.rateLimit({ retryAfterSeconds: 2 });

    for (let request = 0; request < 5; request += 1) expect((await listB()).status).toBe(429);
    expect((await listB()).body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.any(String) });

    platformB.faults.clear('rate-limit');
    expect((await listB()).status).toBe(200);
  });

  it('is answered before the key is checked, as a gateway in front of the platform does', async () => {
    platformA.faults.rateLimit({ count: 1 });
    expect((await send(platformA.url, 'GET', '/v2/agents', { key: 'wrong' })).status).toBe(429);
  });
});

describe('server errors', () => {
  it('answers the chosen 5xx for the next N requests, and a create during it stores nothing', async () => {
    platformA.faults.serverError({ count: 1, status: 503 });

    const failed = await send(platformA.url, 'POST', '/v2/agents', { body: { agent_name: 'x' } });
    const retried = await send(platformA.url, 'POST', '/v2/agents', { body: { agent_name: 'x' } });

    expect(failed).toMatchObject({ status: 503, body: { status: 503 } });
    expect(retried.status).toBe(201);
    expect(platformA.agents()).toHaveLength(1);
  });

  it('answers 500 to every request until cleared by default', async () => {
    platformB.faults.serverError();

    expect(await listB()).toMatchObject({ status: 500, body: { statusCode: 500, error: 'Internal Server Error' } });
    expect((await listB()).status).toBe(500);
    platformB.faults.clear();
    expect((await listB()).status).toBe(200);
  });

  it('refuses a status that is not 5xx', () => {
    expect(() => platformA.faults.serverError({ status: 404 })).toThrow(RangeError);
  });
});

describe('slow answers', () => {
  it('delays every answer by the configured milliseconds', async () => {
    platformA.faults.delay(120);

    const started = performance.now();
    const answer = await listA();
    const elapsed = performance.now() - started;

    expect(answer.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(115);
    platformA.faults.delay(0);
    const quick = performance.now();
    await listA();
    expect(performance.now() - quick).toBeLessThan(100);
  });

  it('does the work before the delayed answer: a client that gives up has still created its agent', async () => {
    platformA.faults.delay(400);

    const gaveUp = fetch(`${platformA.url}/v2/agents`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'created anyway' }),
      signal: AbortSignal.timeout(100),
    });

    await expect(gaveUp).rejects.toThrow();
    expect(platformA.agents().map((agent) => agent.agent_name)).toEqual(['created anyway']);
  });
});

describe('revoked keys', () => {
  it('answers 401 to every request, valid key or not, until the keys are restored', async () => {
    platformB.faults.revokeKeys();

    expect(await listB()).toMatchObject({ status: 401, body: { statusCode: 401, error: 'Unauthorized' } });
    platformB.faults.restoreKeys();
    expect((await listB()).status).toBe(200);
  });
});

describe('platform down', () => {
  it('reset: drops each connection without an answer, logged with status null, until up', async () => {
    await platformA.down('reset');

    const failure = await networkFailure(listA());

    expect(failure).not.toBe('');
    expect(platformA.requests().at(-1)).toMatchObject({ method: 'GET', path: '/v2/agents', status: null });
    await platformA.up();
    expect((await listA()).status).toBe(200);
  });

  it('refuse: the port stops listening (ECONNREFUSED) and listens again on the same port when up', async () => {
    const url = platformB.url;
    await platformB.down('refuse');

    expect(await tcpConnect(url)).toBe('ECONNREFUSED');
    // A client's pooled keep-alive connection is closed too: it fails instead of being answered.
    expect(await networkFailure(listB())).not.toBe('');

    await platformB.up();
    expect(platformB.url).toBe(url);
    expect((await listB()).status).toBe(200);
  });
});

describe('request log and state inspection', () => {
  it('records method, path, query, status, timestamp and body of each management request, oldest first', async () => {
    const before = Date.now();
    await send(platformA.url, 'POST', '/v2/agents', { body: { agent_name: 'logged' } });
    await send(platformA.url, 'GET', '/v2/agents?metadata.external_id=e-1');
    await send(platformA.url, 'GET', '/v2/agents', { key: 'wrong' });
    await control(platformA, 'GET', '/state');

    const log = platformA.requests();

    expect(log).toEqual([
      { method: 'POST', path: '/v2/agents', query: '', status: 201, timestamp: expect.any(Number), body: { agent_name: 'logged' } },
      { method: 'GET', path: '/v2/agents', query: 'metadata.external_id=e-1', status: 200, timestamp: expect.any(Number) },
      { method: 'GET', path: '/v2/agents', query: '', status: 401, timestamp: expect.any(Number) },
    ]);
    expect(log[0].timestamp).toBeGreaterThanOrEqual(before);
    platformA.clearRequests();
    expect(platformA.requests()).toEqual([]);
  });

  it('shows agents and numbers with their binding', async () => {
    const { body: assistant } = await send(platformB.url, 'POST', '/assistant', { body: { name: 'Counted' } });
    await send(platformB.url, 'POST', '/phone-number', { body: { number: '+14155550123', assistantId: assistant.id } });

    expect(platformB.state()).toEqual({ agents: [assistant], phoneNumbers: [{ id: expect.any(String), number: '+14155550123', assistantId: assistant.id }] });
  });
});

describe('control API', () => {
  it('describes itself, needs no key, and is not logged', async () => {
    const index = await control(platformA, 'GET', '');

    expect(index).toMatchObject({ status: 200, body: { platform: 'platform_a', url: platformA.url, routes: expect.arrayContaining([expect.stringContaining('/__sim/faults/rate-limit')]) } });
    expect(platformA.requests()).toEqual([]);
  });

  it('reads state, agents, phone numbers and the request log', async () => {
    const { body: agent } = await send(platformA.url, 'POST', '/v2/agents', { body: { agent_name: 'Seen' } });
    await send(platformA.url, 'POST', '/v2/phone-numbers', { body: { phone_number: '+14155550123', inbound_agent_id: agent.agent_id } });
    const number = { phone_number: '+14155550123', inbound_agent_id: agent.agent_id, purchased: false };

    expect((await control(platformA, 'GET', '/agents')).body).toEqual([agent]);
    expect((await control(platformA, 'GET', '/phone-numbers')).body).toEqual([number]);
    expect((await control(platformA, 'GET', '/state')).body).toEqual({ agents: [agent], phoneNumbers: [number] });
    expect((await control(platformA, 'GET', '/requests')).body.map((entry: { status: number }) => entry.status)).toEqual([201, 201]);
    expect((await control(platformA, 'DELETE', '/requests')).status).toBe(204);
    expect((await control(platformA, 'GET', '/requests')).body).toEqual([]);
  });

  it('switches a counted rate limit and a 5xx, and is itself never affected by them', async () => {
    expect((await control(platformB, 'POST', '/faults/rate-limit', { count: 1, retryAfterSeconds: 3 })).body.rateLimit).toEqual({ remaining: 1, retryAfterSeconds: 3 });
    await control(platformB, 'POST', '/faults/server-error', { count: 1, status: 502 });

    const limited = await listB();
    const broken = await listB();

    expect([limited.status, limited.headers.get('retry-after'), broken.status, (await listB()).status]).toEqual([429, '3', 502, 200]);
    expect((await control(platformB, 'GET', '/faults')).body).toMatchObject({ rateLimit: null, serverError: null });
  });

  it('switches delay, revoked keys and no numbers, and clears them one by one or all at once', async () => {
    await control(platformA, 'POST', '/faults/delay', { ms: 50 });
    await control(platformA, 'POST', '/faults/unauthorized', {});
    await control(platformA, 'POST', '/faults/no-numbers', { areaCode: '415' });

    expect((await control(platformA, 'GET', '/faults')).body).toEqual({
      rateLimit: null,
      serverError: null,
      delayMs: 50,
      keysRevoked: true,
      down: null,
      noNumbersAvailable: { everyArea: false, areaCodes: ['415'] },
    });
    expect((await listA()).status).toBe(401);

    await control(platformA, 'DELETE', '/faults/unauthorized');
    expect((await send(platformA.url, 'POST', '/v2/phone-numbers', { body: { area_code: '415' } })).status).toBe(422);
    await control(platformA, 'DELETE', '/faults/no-numbers?areaCode=415');
    expect((await send(platformA.url, 'POST', '/v2/phone-numbers', { body: { area_code: '415' } })).status).toBe(201);

    await control(platformA, 'DELETE', '/faults');
    expect(platformA.faultState().delayMs).toBe(0);
  });

  it('takes the platform down in reset mode and back up', async () => {
    expect((await control(platformA, 'POST', '/faults/down', {})).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await networkFailure(listA())).not.toBe('');
    expect((await control(platformA, 'GET', '/faults')).body.down).toEqual({ mode: 'reset' });

    await control(platformA, 'DELETE', '/faults/down');
    expect((await listA()).status).toBe(200);
  });

  it('refuses connections for forMs in refuse mode, then listens again by itself', async () => {
    expect((await control(platformB, 'POST', '/faults/down', { mode: 'refuse' })).status).toBe(400);

    expect((await control(platformB, 'POST', '/faults/down', { mode: 'refuse', forMs: 300 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await tcpConnect(platformB.url)).toBe('ECONNREFUSED');

    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await listB()).status).toBe(200);
  });

  it('replaces the valid keys', async () => {
    expect((await send(platformA.url, 'PUT', '/__sim/api-keys', { key: null, body: { keys: ['fresh'] } })).body).toEqual({ keys: ['fresh'] });
    try {
      expect((await listA()).status).toBe(401);
      expect((await send(platformA.url, 'GET', '/v2/agents', { key: 'fresh' })).status).toBe(200);
    } finally {
      platformA.setApiKeys(['sim-api-key']);
    }
  });

  it('resets agents, numbers, requests and faults', async () => {
    await send(platformB.url, 'POST', '/assistant', { body: { name: 'Gone soon' } });
    platformB.faults.delay(10);

    expect((await control(platformB, 'POST', '/reset')).status).toBe(204);

    expect(platformB.state()).toEqual({ agents: [], phoneNumbers: [] });
    expect(platformB.requests()).toEqual([]);
    expect(platformB.faultState().delayMs).toBe(0);
  });

  it('answers 400 for bad fault options and 404 for an unknown route or fault', async () => {
    expect((await control(platformA, 'POST', '/faults/delay', { ms: 'slow' })).status).toBe(400);
    expect((await control(platformA, 'POST', '/faults/rate-limit', { count: 0 })).status).toBe(400);
    expect((await control(platformA, 'POST', '/faults/server-error', { status: 418 })).status).toBe(400);
    expect((await control(platformA, 'DELETE', '/faults/gremlins')).status).toBe(404);
    expect((await control(platformA, 'GET', '/nothing-here')).status).toBe(404);
  });
});
