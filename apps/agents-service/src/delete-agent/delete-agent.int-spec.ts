import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AccountContext, type AgentReply } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

describe('agents.delete over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('delete');
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (account: AccountContext, body: Record<string, unknown>) =>
    h.attempt<AgentReply>(AgentsRpc.create, { account, body: { voice_platform: 'platform_a', ...body } });
  const del = (account: AccountContext, agent_id: string, expected_version?: number) =>
    h.attempt(AgentsRpc.delete, { account_id: account.id, agent_id, expected_version });

  it('hides the agent, frees its name, number and quota slot', async () => {
    const account = await h.account({ agent_limit: 1 });
    const created = await create(account, { name: 'Solo', phone_number: '+14155552001' });
    const { agent } = (created as { value: AgentReply }).value;
    expect(await create(account, { name: 'Second' })).toMatchObject({ ok: false, error: { code: 'quota_exceeded', limit: 1, current: 1 } });

    expect(await del(account, agent.id)).toEqual({ ok: true, value: { id: agent.id, deleted: true } });
    expect(await h.attempt(AgentsRpc.get, { account_id: account.id, agent_id: agent.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await h.rpc(AgentsRpc.list, { account_id: account.id, query: {} })).toMatchObject({ total: 0, items: [] });

    // Same name, same number, and the quota slot is free again.
    expect(await create(account, { name: 'solo', phone_number: '+14155552001' })).toMatchObject({ ok: true });
  });

  it('counts paused agents toward the quota', async () => {
    const account = await h.account({ agent_limit: 1 });
    const { agent } = ((await create(account, { name: 'Napping' })) as { value: AgentReply }).value;
    await h.rpc(AgentsRpc.update, { account, agent_id: agent.id, body: { status: 'paused' } });
    expect(await create(account, { name: 'Another' })).toMatchObject({ ok: false, error: { code: 'quota_exceeded', limit: 1, current: 1 } });
  });

  it('is not_found twice, for another account and for unknown ids', async () => {
    const account = await h.account();
    const { agent } = ((await create(account, { name: 'Once' })) as { value: AgentReply }).value;
    expect(await del(await h.account(), agent.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await del(account, agent.id)).toMatchObject({ ok: true });
    expect(await del(account, agent.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await del(account, 'agt_missing')).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses a stale expected_version and accepts the current one', async () => {
    const account = await h.account();
    const { agent } = ((await create(account, { name: 'Guarded', phone_number: '+14155552002' })) as { value: AgentReply }).value;
    await h.rpc(AgentsRpc.update, { account, agent_id: agent.id, body: { name: 'Guarded 2' } });
    expect(await del(account, agent.id, 1)).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
    expect(await del(account, agent.id, 2)).toMatchObject({ ok: true });
  });
});
