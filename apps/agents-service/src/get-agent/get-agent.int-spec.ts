import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

describe('agents.get over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('get');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('returns the agent as created, with its version', async () => {
    const account = await h.account();
    const created = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Desk', voice_platform: 'platform_a' } });
    expect(await h.rpc(AgentsRpc.get, { account_id: account.id, agent_id: created.agent.id })).toEqual(created);
  });

  it('does not reveal another account’s agent, an unknown id or a deleted agent', async () => {
    const owner = await h.account();
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account: owner, body: { name: 'Mine', voice_platform: 'platform_a' } });
    const notFound = { ok: false, error: { code: 'not_found', message: expect.any(String) } };
    expect(await h.attempt(AgentsRpc.get, { account_id: newAccount().id, agent_id: agent.id })).toEqual(notFound);
    expect(await h.attempt(AgentsRpc.get, { account_id: owner.id, agent_id: 'agt_nope' })).toEqual(notFound);
    expect(await h.attempt(AgentsRpc.get, { account_id: owner.id, agent_id: 42 })).toEqual(notFound);
    await h.rpc(AgentsRpc.delete, { account_id: owner.id, agent_id: agent.id });
    expect(await h.attempt(AgentsRpc.get, { account_id: owner.id, agent_id: agent.id })).toEqual(notFound);
  });
});
