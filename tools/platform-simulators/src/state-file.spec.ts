import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simulatorStateFiles, startSimulators, type RunningSimulators } from './start-simulators.js';
import { send } from './spec-support.js';

describe('state file: a platform does not forget its agents and numbers when the simulator restarts', () => {
  const directories: string[] = [];
  const running: RunningSimulators[] = [];
  const stateDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
    directories.push(dir);
    return dir;
  };
  const start = async (dir?: string) => {
    const simulators = await startSimulators({ stateDir: dir });
    running.push(simulators);
    return simulators;
  };

  afterEach(async () => {
    for (const simulators of running.splice(0)) await simulators.stop();
    for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps agents, numbers, bindings and the numbers ever sold across a stop and a start on the same directory', async () => {
    const dir = stateDir();
    const first = await start(dir);
    const agent = (await send(first.urls.platformA, 'POST', '/v2/agents', { body: { agent_name: 'Kept', metadata: { external_id: 'ours-1' } } })).body;
    const bought = (await send(first.urls.platformA, 'POST', '/v2/phone-numbers', { body: { area_code: '415', inbound_agent_id: agent.agent_id } })).body;
    const assistant = (await send(first.urls.platformB, 'POST', '/assistant', { body: { name: 'Kept too' } })).body;
    const imported = (await send(first.urls.platformB, 'POST', '/phone-number', { body: { number: '+16465550101', assistantId: assistant.id } })).body;
    // Released: gone, and never sold again after the restart either.
    expect((await send(first.urls.platformA, 'DELETE', `/v2/phone-numbers/${encodeURIComponent(bought.phone_number)}`)).status).toBe(204);
    const kept = (await send(first.urls.platformA, 'POST', '/v2/phone-numbers', { body: { area_code: '415', inbound_agent_id: agent.agent_id } })).body;
    const before = { a: first.platformA.state(), b: first.platformB.state() };
    await first.stop();

    expect(readdirSync(dir).sort()).toEqual(['platform-a.json', 'platform-b.json']);
    const second = await start(dir);
    expect(second.platformA.state()).toEqual(before.a);
    expect(second.platformB.state()).toEqual(before.b);
    expect((await send(second.urls.platformA, 'GET', `/v2/agents/${agent.agent_id}`)).body).toEqual(agent);
    expect((await send(second.urls.platformB, 'GET', '/phone-number')).body).toEqual([imported]);
    expect(second.platformA.phoneNumbers()).toEqual([kept]);
    const issued = JSON.parse(readFileSync(simulatorStateFiles(dir).platformA, 'utf8')).issuedNumbers as string[];
    expect(issued).toEqual(expect.arrayContaining([bought.phone_number, kept.phone_number]));
  });

  it('writes the file after each change, never leaving a temporary file; reset empties it; without a directory nothing is written', async () => {
    const dir = stateDir();
    const simulators = await start(dir);
    const files = simulatorStateFiles(dir);
    expect(existsSync(files.platformA)).toBe(false);
    await send(simulators.urls.platformA, 'POST', '/v2/agents', { body: { agent_name: 'One' } });
    expect(JSON.parse(readFileSync(files.platformA, 'utf8')).agents).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(['platform-a.json']);
    simulators.platformA.reset();
    expect(JSON.parse(readFileSync(files.platformA, 'utf8')).agents).toEqual([]);

    const inMemory = await start();
    await send(inMemory.urls.platformB, 'POST', '/assistant', { body: { name: 'Volatile' } });
    await inMemory.stop();
    const again = await start();
    expect(again.platformB.agents()).toEqual([]);
  });
});

describe('listing page by page (what a reconciliation reads)', () => {
  let simulators: RunningSimulators;
  afterEach(async () => simulators?.stop());

  it('platform_a pages agents and numbers with limit and pagination_key; platform_b with limit and after', async () => {
    simulators = await startSimulators();
    const a = simulators.urls.platformA;
    const b = simulators.urls.platformB;
    for (let i = 0; i < 5; i++) {
      await send(a, 'POST', '/v2/agents', { body: { agent_name: `A${i}` } });
      await send(a, 'POST', '/v2/phone-numbers', { body: { area_code: '212' } });
      await send(b, 'POST', '/assistant', { body: { name: `B${i}` } });
      await send(b, 'POST', '/phone-number', { body: { areaCode: '212' } });
    }
    const pagesA = async (path: string) => {
      const ids: unknown[] = [];
      let key: string | undefined;
      for (let pages = 1; ; pages++) {
        const body = (await send(a, 'GET', `${path}?limit=2${key ? `&pagination_key=${encodeURIComponent(key)}` : ''}`)).body;
        ids.push(...body.items);
        key = body.pagination_key;
        if (key === undefined) return { items: ids, pages };
      }
    };
    expect(await pagesA('/v2/agents')).toEqual({ items: expect.arrayContaining(simulators.platformA.agents()), pages: 3 });
    expect((await pagesA('/v2/phone-numbers')).items).toHaveLength(5);

    const first = (await send(b, 'GET', '/assistant?limit=3')).body;
    const rest = (await send(b, 'GET', `/assistant?limit=3&after=${first[2].id}`)).body;
    expect([...first, ...rest]).toHaveLength(5);
    expect(new Set([...first, ...rest].map((x: { id: string }) => x.id)).size).toBe(5);
    expect((await send(b, 'GET', '/phone-number?limit=10')).body).toHaveLength(5);
    expect((await send(a, 'GET', '/v2/agents?limit=0')).status).toBe(422);
    expect((await send(b, 'GET', '/phone-number?limit=x')).status).toBe(400);
  });
});
