import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, IntegrationsRpc, type AgentReply, type IntegrationReply } from '@voice/contracts';
import { SecretBox } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';
import { secretContext } from './integrations.settings.js';

/**
 * An integration whose stored key an HTTP header cannot carry (saved before PUT checked the key's characters):
 * an agent's platform sync with it is a credentials failure like a revoked key — the create is refused with
 * invalid_platform_credentials, the integration shows invalid_credentials, nothing is sent to the platform —
 * and replacing the key (PUT) lets agents onto the platform again.
 */
describe('a stored API key that an HTTP header cannot carry', () => {
  let h: AgentsHarness;
  const box = new SecretBox({ current: randomBytes(32) });

  beforeAll(async () => {
    h = await startAgentsHarness('unsendable_key', { secretBox: box });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function agentWhen(accountId: string, agentId: string, done: (reply: AgentReply) => boolean): Promise<AgentReply> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const reply = await h.rpc<AgentReply>(AgentsRpc.get, { account_id: accountId, agent_id: agentId });
      if (done(reply) || Date.now() > deadline) return reply;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it.each(['legacy\r\nkey', 'legacy\u0000key', 'ключ'])('%j: creating an agent is refused as invalid credentials (not an internal error), then a new key lets it through', async (storedKey) => {
    const account = newAccount({ voice_platforms: ['platform_a'] });
    await h.integrate(account, 'platform_a');
    await h.db.query('UPDATE agents.integrations SET api_key_sealed = $1 WHERE account_id = $2', [
      box.seal(storedKey, secretContext(account.id, 'platform_a', 'api_key')),
      account.id,
    ]);
    const requestsBefore = h.simulators.platformA.requests().length;

    const refused = await h.attempt<AgentReply>(AgentsRpc.create, { account, body: { name: 'Desk', voice_platform: 'platform_a' } });
    expect(refused).toEqual({ ok: false, error: expect.objectContaining({ code: 'invalid_platform_credentials', message: expect.stringContaining('cannot carry') }) });
    const integration = await h.rpc<IntegrationReply>(IntegrationsRpc.get, { account_id: account.id, platform: 'platform_a' });
    expect(integration.integration.status).toBe('invalid_credentials');
    expect(h.simulators.platformA.requests()).toHaveLength(requestsBefore);

    await h.integrate(account, 'platform_a');
    const created = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Desk', voice_platform: 'platform_a' } });
    const synced = await agentWhen(account.id, created.agent.id, (reply) => reply.agent.platform_sync.state === 'synced');
    expect(synced.agent.platform_sync.state).toBe('synced');
  });
});
