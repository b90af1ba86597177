import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

describe('agents.verify-ownership and agents.health over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('verify');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('names the ids that are not agents of the account; deleted agents still belong to it', async () => {
    const account = await h.account();
    const other = await h.account();
    const live = (await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Live', voice_platform: 'platform_a' } })).agent;
    const gone = (await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Gone', voice_platform: 'platform_a' } })).agent;
    const foreign = (await h.rpc<AgentReply>(AgentsRpc.create, { account: other, body: { name: 'Foreign', voice_platform: 'platform_a' } })).agent;
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: gone.id });

    expect(
      await h.rpc(AgentsRpc.verifyOwnership, { account_id: account.id, agent_ids: [live.id, gone.id, foreign.id, 'agt_never', live.id] }),
    ).toEqual({ unknown_agent_ids: [foreign.id, 'agt_never'] });
    expect(await h.rpc(AgentsRpc.verifyOwnership, { account_id: account.id, agent_ids: [] })).toEqual({ unknown_agent_ids: [] });
    expect(await h.attempt(AgentsRpc.verifyOwnership, { account_id: account.id, agent_ids: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
  });

  it('answers health only with a working database', async () => {
    expect(await h.rpc(AgentsRpc.health, {})).toEqual({ service: 'agents-service', status: 'ok' });
  });
});
