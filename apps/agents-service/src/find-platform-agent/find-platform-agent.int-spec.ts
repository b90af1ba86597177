import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, IntegrationsRpc, type AgentReply, type IntegrationListReply } from '@voice/contracts';
import { startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

/** What webhook ingest asks agents-service: whose agent a platform agent id is, and an integration's webhook secret. */
describe('agents.find-by-platform-agent and integrations.webhook-secret over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('platform-agent');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('finds the account’s agents by every id a platform gave them (deleted agents too, their platform agent gone), never another account’s', async () => {
    const account = await h.account();
    const other = await h.account();
    const a = (await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'On A', voice_platform: 'platform_a' } })).agent;
    const b = (await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'On B', voice_platform: 'platform_b' } })).agent;
    const foreign = (await h.rpc<AgentReply>(AgentsRpc.create, { account: other, body: { name: 'Theirs', voice_platform: 'platform_a' } })).agent;
    const [pa, pb, pf] = [a, b, foreign].map((agent) => agent.platform_sync.platform_agent_id as string);
    expect([pa, pb, pf].every((id) => typeof id === 'string')).toBe(true);
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: a.id });

    const find = (platform: string, ids: string[], accountId = account.id) => h.rpc(AgentsRpc.findByPlatformAgent, { account_id: accountId, platform, platform_agent_ids: ids });
    const privacy = { pii_redaction: { enabled: false, categories: ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'] }, store_content: true };
    expect(await find('platform_a', [pa, pf, 'agent_unknown'])).toEqual({ agents: { [pa]: a.id }, privacy: { [a.id]: privacy } });
    expect(await find('platform_b', [pb, pa])).toEqual({ agents: { [pb]: b.id }, privacy: { [b.id]: privacy } });
    expect(await find('platform_a', [pf], other.id)).toEqual({ agents: { [pf]: foreign.id }, privacy: { [foreign.id]: privacy } });
    expect(await find('platform_a', [])).toEqual({ agents: {}, privacy: {} });
    expect(await h.attempt(AgentsRpc.findByPlatformAgent, { account_id: account.id, platform: 'platform_c', platform_agent_ids: [] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await h.attempt(AgentsRpc.findByPlatformAgent, { account_id: account.id, platform: 'platform_a', platform_agent_ids: 'x' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('answers each found agent’s privacy settings as they are now', async () => {
    const account = await h.account();
    const agent = (await h.rpc<AgentReply>(AgentsRpc.create, {
      account, body: { name: 'Private', voice_platform: 'platform_a', pii_redaction: { enabled: true, categories: ['credit_card'] }, store_content: false },
    })).agent;
    const platformAgentId = agent.platform_sync.platform_agent_id as string;
    const found = await h.rpc(AgentsRpc.findByPlatformAgent, { account_id: account.id, platform: 'platform_a', platform_agent_ids: [platformAgentId] });
    expect(found).toEqual({ agents: { [platformAgentId]: agent.id }, privacy: { [agent.id]: { pii_redaction: { enabled: true, categories: ['credit_card'] }, store_content: false } } });
  });

  it('opens an integration’s webhook secret by the id in its webhook URL; an unknown id is null', async () => {
    const account = await h.account({ voice_platforms: ['platform_a'] });
    const { items } = await h.rpc<IntegrationListReply>(IntegrationsRpc.list, { account_id: account.id });
    expect(await h.rpc(IntegrationsRpc.webhookSecret, { integration_id: items[0].id })).toEqual({
      integration: { id: items[0].id, account_id: account.id, platform: 'platform_a', webhook_secret: 'whsec_harness_secret' },
    });
    for (const id of ['int_000000000000000000000000', '', 'x'.repeat(500), 42]) {
      expect(await h.rpc(IntegrationsRpc.webhookSecret, { integration_id: id })).toEqual({ integration: null });
    }
  });
});
