import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AccountContext, type AgentReply, type AgentView, type PageResult } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

describe('agents.list over NATS', () => {
  let h: AgentsHarness;
  let account: AccountContext;
  const created: AgentView[] = [];
  const list = (query: Record<string, string | string[]> = {}, accountId = account.id) =>
    h.rpc<PageResult<AgentView>>(AgentsRpc.list, { account_id: accountId, query });

  beforeAll(async () => {
    h = await startAgentsHarness('list');
    account = await h.account({ agent_limit: 100 });
    const specs = [
      { name: 'Sales East', voice_platform: 'platform_a' },
      { name: 'Sales West', voice_platform: 'platform_b' },
      { name: '50% Off Line', voice_platform: 'platform_a' },
      { name: 'Support_1', voice_platform: 'platform_b' },
      { name: 'Support 2', voice_platform: 'platform_a' },
      { name: 'Billing', voice_platform: 'platform_a' },
    ];
    for (const body of specs) created.push((await h.rpc<AgentReply>(AgentsRpc.create, { account, body })).agent);
    await h.rpc(AgentsRpc.update, { account, agent_id: created[1].id, body: { status: 'paused' } });
    await h.rpc(AgentsRpc.update, { account, agent_id: created[3].id, body: { status: 'paused' } });
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: created[5].id });
    // Another account's agent must never show up.
    await h.rpc(AgentsRpc.create, { account: await h.account(), body: { name: 'Sales North', voice_platform: 'platform_a' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const names = (page: PageResult<AgentView>) => page.items.map((a) => a.name);

  it('lists live agents of the account, newest first, with page info', async () => {
    const page = await list();
    expect(page).toMatchObject({ total: 5, page: 1, per_page: 25 });
    expect(names(page)).toEqual(['Support 2', 'Support_1', '50% Off Line', 'Sales West', 'Sales East']);
  });

  it('filters by status and voice_platform, combined', async () => {
    expect(names(await list({ status: 'paused' }))).toEqual(['Support_1', 'Sales West']);
    expect(names(await list({ status: 'active' }))).toEqual(['Support 2', '50% Off Line', 'Sales East']);
    expect(names(await list({ voice_platform: 'platform_b' }))).toEqual(['Support_1', 'Sales West']);
    expect(names(await list({ status: 'active', voice_platform: 'platform_a', search: 'sales' }))).toEqual(['Sales East']);
  });

  it('searches names case-insensitively, treating % and _ literally', async () => {
    expect(names(await list({ search: 'SALES' }))).toEqual(['Sales West', 'Sales East']);
    expect(names(await list({ search: '50%' }))).toEqual(['50% Off Line']);
    expect(names(await list({ search: '%' }))).toEqual(['50% Off Line']);
    expect(names(await list({ search: '_' }))).toEqual(['Support_1']);
    expect(names(await list({ search: 'billing' }))).toEqual([]);
  });

  it('pages in a stable order and returns an empty page past the end', async () => {
    const first = await list({ per_page: '2' });
    const second = await list({ per_page: '2', page: '2' });
    const third = await list({ per_page: '2', page: '3' });
    expect(first).toMatchObject({ total: 5, page: 1, per_page: 2 });
    expect([...names(first), ...names(second), ...names(third)]).toEqual(names(await list()));
    expect(await list({ per_page: '2', page: '4' })).toEqual({ items: [], total: 5, page: 4, per_page: 2 });
    expect((await list({ per_page: '500' })).per_page).toBe(100);
  });

  it('refuses bad parameters with the field and valid values', async () => {
    expect(await h.attempt(AgentsRpc.list, { account_id: account.id, query: { status: 'deleted' } })).toEqual({
      ok: false,
      error: { code: 'invalid_parameter', field: 'status', valid_values: ['active', 'paused'], message: expect.any(String) },
    });
    expect(await h.attempt(AgentsRpc.list, { account_id: account.id, query: { per_page: '0' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter', field: 'per_page' },
    });
    expect(await h.attempt(AgentsRpc.list, { account_id: account.id, query: { voice_platform: 'x' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter', field: 'voice_platform', valid_values: ['platform_a', 'platform_b'] },
    });
  });

  it('returns an empty page for an account without agents', async () => {
    expect(await list({}, newAccount().id)).toEqual({ items: [], total: 0, page: 1, per_page: 25 });
  });
});
