/**
 * An agent's life on its voice platform, against the real agents-service and both platform simulators:
 * what each command leaves on the platform, each refusal, and recovery from an unreachable, failing or slow
 * platform without a second platform agent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, IntegrationsRpc, type AccountContext, type AgentReply, type IntegrationReply, type ServiceError } from '@voice/contracts';
import { numberSequence, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

const uniqueNumber = numberSequence('+1646555');

describe('agents on their voice platform', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('platformlife');
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (account: AccountContext, body: Record<string, unknown>) => h.attempt<AgentReply>(AgentsRpc.create, { account, body });
  const created = async (account: AccountContext, body: Record<string, unknown>) => {
    const result = await create(account, body);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    return result.value;
  };
  const update = async (account: AccountContext, agentId: string, body: Record<string, unknown>) =>
    h.rpc<AgentReply>(AgentsRpc.update, { account, agent_id: agentId, body });
  const get = (account: AccountContext, agentId: string) => h.attempt<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agentId });
  const refusal = (result: { ok: boolean; error?: ServiceError }) => {
    expect(result.ok).toBe(false);
    return result.error!;
  };
  const platformA = () => h.simulators.platformA;
  const platformB = () => h.simulators.platformB;
  const onA = (agentId: string) => platformA().agents().filter((a) => a.metadata.external_id === agentId);
  const onB = (agentId: string) => platformB().agents().filter((a) => a.metadata?.externalId === agentId);
  const numberOnA = (phone: string) => platformA().phoneNumbers().find((n) => n.phone_number === phone);
  const numberOnB = (phone: string) => platformB().phoneNumbers().find((n) => n.number === phone);
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const untilSynced = async (account: AccountContext, agentId: string) =>
    (await eventually(() => h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agentId }), (r) => r.agent.platform_sync.state === 'synced')).agent;

  describe('create', () => {
    it('imports a given number on platform_a and binds it to the new platform agent', async () => {
      const account = await h.account();
      const phone = uniqueNumber();
      const { agent, version } = await created(account, { name: 'Imported A', voice_platform: 'platform_a', phone_number: phone, system_prompt: 'Be brief.' });
      expect(version).toBe(1);
      const [platformAgent] = onA(agent.id);
      expect(platformAgent).toMatchObject({ agent_name: 'Imported A', prompt: 'Be brief.', voice_id: 'pa-voice-default', language: 'en' });
      expect(platformAgent.webhook_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/webhooks\/platform_a\/int_[0-9a-f]{24}$/);
      expect(agent.platform_sync).toEqual({
        state: 'synced', platform_agent_id: platformAgent.agent_id, synced_version: 1, last_attempt_at: expect.any(String), last_error: null,
        last_reconciled_at: null, last_drift: null,
      });
      expect(numberOnA(phone)).toEqual({ phone_number: phone, inbound_agent_id: platformAgent.agent_id, purchased: false });
    });

    it('a new public address reaches every agent already synced: the integration PUT re-queues them', async () => {
      const account = await h.account({ voice_platforms: ['platform_a'] });
      const { agent } = await created(account, { name: 'Moving URL', voice_platform: 'platform_a', phone_number: uniqueNumber() });
      expect(onA(agent.id)[0].webhook_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\//);
      await h.integrate(account, 'platform_a', 'https://voice.example.com');
      const moved = await eventually(async () => onA(agent.id)[0].webhook_url, (url) => url?.startsWith('https://voice.example.com/') === true);
      expect(moved).toMatch(/^https:\/\/voice\.example\.com\/v1\/webhooks\/platform_a\/int_[0-9a-f]{24}$/);
      expect((await untilSynced(account, agent.id)).platform_sync.state).toBe('synced');
    });

    it('buys a number on platform_b in the area of the transfer number, bound to the assistant', async () => {
      const account = await h.account();
      const { agent, version } = await created(account, { name: 'Bought B', voice_platform: 'platform_b', transfer_number: '+13125550100', language: 'de' });
      expect(version).toBe(2);
      expect(agent.phone_number).toMatch(/^\+1312\d{7}$/);
      const [assistant] = onB(agent.id);
      expect(assistant).toMatchObject({ name: 'Bought B', transcriber: { language: 'de' }, forwardingPhoneNumber: '+13125550100' });
      expect(numberOnB(agent.phone_number!)).toMatchObject({ assistantId: assistant.id });
      expect(agent.platform_sync).toMatchObject({ state: 'synced', platform_agent_id: assistant.id, synced_version: 2 });
    });

    it('refuses an agent the platform rejects (unknown voice): 422 platform_rejected on voice_id, nothing left on either side', async () => {
      const account = await h.account();
      const error = refusal(await create(account, { name: 'Bad voice', voice_platform: 'platform_a', voice_id: 'no-such-voice' }));
      expect(error).toMatchObject({ code: 'platform_rejected', field: 'voice_id', message: expect.stringContaining('no-such-voice') });
      expect(platformA().agents().filter((a) => a.agent_name === 'Bad voice')).toEqual([]);
      const list = await h.rpc<{ total: number }>(AgentsRpc.list, { account_id: account.id, query: {} });
      expect(list.total).toBe(0);
      // The name is free again.
      expect((await created(account, { name: 'Bad voice', voice_platform: 'platform_a' })).agent.platform_sync.state).toBe('synced');
    });

    it('refuses a number the platform already has registered (422 phone_number_in_use) and removes the agent it created there', async () => {
      const other = await h.account();
      const phone = uniqueNumber();
      await created(other, { name: 'Holder', voice_platform: 'platform_a', phone_number: phone });
      await h.rpc(AgentsRpc.delete, { account_id: other.id, agent_id: (await h.rpc<{ items: Array<{ id: string }> }>(AgentsRpc.list, { account_id: other.id, query: {} })).items[0].id });
      // The number stays registered (unbound) on the platform with the other account: it is not this account's.
      expect(numberOnA(phone)).toMatchObject({ inbound_agent_id: null });
      const account = await h.account();
      const error = refusal(await create(account, { name: 'Taker', voice_platform: 'platform_a', phone_number: phone }));
      expect(error).toMatchObject({ code: 'phone_number_in_use', field: 'phone_number' });
      expect(platformA().agents().filter((a) => a.agent_name === 'Taker')).toEqual([]);
    });

    it('refuses when the platform has no number to sell (422 phone_number_unavailable), and deletes the platform agent', async () => {
      const account = await h.account();
      platformA().faults.noNumbersAvailable();
      try {
        const error = refusal(await create(account, { name: 'No numbers', voice_platform: 'platform_a' }));
        expect(error).toMatchObject({ code: 'phone_number_unavailable' });
      } finally {
        platformA().faults.numbersAvailable();
      }
      expect(platformA().agents().filter((a) => a.agent_name === 'No numbers')).toEqual([]);
    });

    it('refuses when the platform refuses the key (422 invalid_platform_credentials) and marks the integration', async () => {
      const account = await h.account();
      platformB().faults.revokeKeys();
      try {
        const error = refusal(await create(account, { name: 'Locked out', voice_platform: 'platform_b' }));
        expect(error).toMatchObject({ code: 'invalid_platform_credentials' });
      } finally {
        platformB().faults.restoreKeys();
      }
      const { integration } = await h.rpc<IntegrationReply>(IntegrationsRpc.get, { account_id: account.id, platform: 'platform_b' });
      expect(integration.status).toBe('invalid_credentials');
      // A PUT of the integration makes it verified again.
      await h.integrate(account, 'platform_b');
      expect((await h.rpc<IntegrationReply>(IntegrationsRpc.get, { account_id: account.id, platform: 'platform_b' })).integration.status).toBe('verified');
    });

    it('refuses a platform without an integration: 422 platform_not_configured', async () => {
      const account = await h.account({ voice_platforms: ['platform_a'] });
      const entitledOnly = { ...account, voice_platforms: ['platform_a', 'platform_b'] };
      expect(refusal(await create(entitledOnly, { name: 'Nowhere', voice_platform: 'platform_b' }))).toMatchObject({
        code: 'platform_not_configured',
        field: 'voice_platform',
      });
    });

    it('answers pending while the platform is down, then syncs once it is back: one platform agent, one number', async () => {
      const account = await h.account();
      await platformA().down('refuse');
      let agentId: string;
      try {
        const { agent } = await created(account, { name: 'Outage', voice_platform: 'platform_a' });
        agentId = agent.id;
        expect(agent).toMatchObject({ phone_number: null, platform_sync: { state: 'pending', platform_agent_id: null, last_error: { code: 'platform_unavailable' } } });
      } finally {
        await platformA().up();
      }
      const synced = await untilSynced(account, agentId!);
      expect(synced.phone_number).toMatch(/^\+1\d{10}$/);
      expect(onA(agentId!)).toHaveLength(1);
      expect(numberOnA(synced.phone_number!)).toMatchObject({ inbound_agent_id: onA(agentId!)[0].agent_id, purchased: true });
    });

    it('answers pending on 5xx and 429 (Retry-After honoured), then syncs', async () => {
      const account = await h.account();
      platformB().faults.serverError({ count: 1, status: 503 });
      const first = await created(account, { name: 'Flaky', voice_platform: 'platform_b', phone_number: uniqueNumber() });
      expect(first.agent.platform_sync).toMatchObject({ state: 'pending', last_error: { code: 'platform_unavailable' } });
      expect((await untilSynced(account, first.agent.id)).platform_sync.platform_agent_id).toBe(onB(first.agent.id)[0].id);

      platformB().faults.rateLimit({ count: 1, retryAfterSeconds: 1 });
      const started = Date.now();
      const second = await created(account, { name: 'Throttled', voice_platform: 'platform_b', phone_number: uniqueNumber() });
      expect(second.agent.platform_sync.state).toBe('pending');
      await untilSynced(account, second.agent.id);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(onB(second.agent.id)).toHaveLength(1);
    });
  });

  describe('changes reach the platform', () => {
    it('PATCH sends only the changed fields', async () => {
      const account = await h.account();
      const { agent } = await created(account, { name: 'Patchable', voice_platform: 'platform_a', phone_number: uniqueNumber(), welcome_message: 'Hi' });
      platformA().clearRequests();
      const updated = await update(account, agent.id, { system_prompt: 'New prompt', welcome_message: 'Hi' });
      expect(updated.agent.platform_sync).toMatchObject({ state: 'synced', synced_version: 2 });
      const patches = platformA().requests().filter((r) => r.method === 'PATCH' && r.path.startsWith('/v2/agents/'));
      expect(patches.map((r) => r.body)).toEqual([{ prompt: 'New prompt' }]);
      expect(onA(agent.id)[0]).toMatchObject({ prompt: 'New prompt', begin_message: 'Hi' });
    });

    it('pause unbinds the number (the platform stops answering), resume binds it again', async () => {
      const account = await h.account();
      const phone = uniqueNumber();
      const { agent } = await created(account, { name: 'Night shift', voice_platform: 'platform_b', phone_number: phone });
      const assistantId = agent.platform_sync.platform_agent_id;
      const paused = await update(account, agent.id, { status: 'paused' });
      expect(paused.agent.platform_sync.state).toBe('synced');
      expect(numberOnB(phone)).toMatchObject({ assistantId: null });
      expect(onB(agent.id)).toHaveLength(1);
      await update(account, agent.id, { status: 'active' });
      expect(numberOnB(phone)).toMatchObject({ assistantId });
    });

    it('delete releases a bought number and deletes the platform agent; an imported number is only unbound', async () => {
      const account = await h.account();
      const bought = (await created(account, { name: 'Bought', voice_platform: 'platform_a' })).agent;
      const phone = uniqueNumber();
      const imported = (await created(account, { name: 'Imported', voice_platform: 'platform_a', phone_number: phone })).agent;
      await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: bought.id });
      await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: imported.id });
      expect(onA(bought.id)).toEqual([]);
      expect(onA(imported.id)).toEqual([]);
      expect(numberOnA(bought.phone_number!)).toBeUndefined();
      expect(numberOnA(phone)).toEqual({ phone_number: phone, inbound_agent_id: null, purchased: false });
    });

    it('a later agent of the account importing the same number adopts it (no phone_number_in_use)', async () => {
      const account = await h.account();
      const phone = uniqueNumber();
      const first = (await created(account, { name: 'First tenant', voice_platform: 'platform_a', phone_number: phone })).agent;
      await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: first.id });
      platformA().clearRequests();
      const second = (await created(account, { name: 'Second tenant', voice_platform: 'platform_a', phone_number: phone })).agent;
      expect(second.platform_sync.state).toBe('synced');
      expect(numberOnA(phone)).toMatchObject({ inbound_agent_id: second.platform_sync.platform_agent_id });
      expect(platformA().requests().filter((r) => r.method === 'POST' && r.path === '/v2/phone-numbers')).toEqual([]);
    });

    it('switching voice_platform creates the agent on the new platform with the same number and removes it from the old one', async () => {
      const account = await h.account();
      const { agent } = await created(account, { name: 'Mover', voice_platform: 'platform_a' });
      const phone = agent.phone_number!;
      const moved = await update(account, agent.id, { voice_platform: 'platform_b' });
      expect(moved.agent).toMatchObject({ voice_platform: 'platform_b', phone_number: phone, voice_id: 'pb-voice-default', platform_sync: { state: 'synced' } });
      const [assistant] = onB(agent.id);
      expect(moved.agent.platform_sync.platform_agent_id).toBe(assistant.id);
      expect(numberOnB(phone)).toMatchObject({ assistantId: assistant.id });
      expect(onA(agent.id)).toEqual([]);
      // The old platform keeps the (bought) number, unbound: switching back is only a bind.
      expect(numberOnA(phone)).toMatchObject({ inbound_agent_id: null, purchased: true });
    });

    it('a permanent refusal of an update shows failed with the reason and waits for the next change', async () => {
      const account = await h.account();
      const { agent } = await created(account, { name: 'Voice change', voice_platform: 'platform_a', phone_number: uniqueNumber() });
      const refused = await update(account, agent.id, { voice_id: 'unknown-voice' });
      expect(refused.agent.voice_id).toBe('unknown-voice');
      expect(refused.agent.platform_sync).toMatchObject({
        state: 'failed',
        synced_version: 1,
        last_error: { code: 'platform_rejected', field: 'voice_id' },
      });
      // Nothing retries it by itself…
      await new Promise((r) => setTimeout(r, 500));
      expect((await get(account, agent.id))).toMatchObject({ ok: true, value: { agent: { platform_sync: { state: 'failed' } } } });
      // …the next change does.
      const fixed = await update(account, agent.id, { voice_id: 'pa-voice-calm' });
      expect(fixed.agent.platform_sync).toMatchObject({ state: 'synced', synced_version: 3, last_error: null });
      expect(onA(agent.id)[0].voice_id).toBe('pa-voice-calm');
    });
  });

  it('new credentials (an integration PUT) requeue an agent whose sync the platform refused for them', async () => {
    const account = await h.account();
    const { agent } = await created(account, { name: 'Rekeyed', voice_platform: 'platform_a', phone_number: uniqueNumber() });
    platformA().faults.revokeKeys();
    let refused: AgentReply;
    try {
      refused = await update(account, agent.id, { welcome_message: 'Hello again' });
    } finally {
      platformA().faults.restoreKeys();
    }
    expect(refused.agent.platform_sync).toMatchObject({ state: 'failed', last_error: { code: 'invalid_platform_credentials' } });
    await h.integrate(account, 'platform_a');
    const synced = await untilSynced(account, agent.id);
    expect(synced.platform_sync).toMatchObject({ state: 'synced', synced_version: 2, last_error: null });
    expect(onA(agent.id)[0].begin_message).toBe('Hello again');
  });

  describe('a slow platform', () => {
    let slow: AgentsHarness;
    beforeAll(async () => {
      slow = await startAgentsHarness('platformslow', { platformSync: { inlineBoundMs: 500, pollIntervalMs: 100 }, platformHttp: { allowPrivate: true, timeoutMs: 5_000 } });
    });
    afterAll(async () => {
      await slow?.close();
    });

    it('answers pending at the bound; the run goes on and syncs without a second platform agent', async () => {
      const account = await slow.account();
      slow.simulators.platformA.faults.delay(400);
      try {
        const started = Date.now();
        const { agent } = await slow.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Slow', voice_platform: 'platform_a', phone_number: uniqueNumber() } });
        expect(Date.now() - started).toBeLessThan(3_000);
        expect(agent.platform_sync.state).toBe('pending');
        const synced = await eventually(
          () => slow.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agent.id }),
          (r) => r.agent.platform_sync.state === 'synced',
        );
        expect(synced.agent.platform_sync.state).toBe('synced');
      } finally {
        slow.simulators.platformA.faults.delay(0);
      }
      const agents = slow.simulators.platformA.agents().filter((a) => a.agent_name === 'Slow');
      expect(agents).toHaveLength(1);
    });
  });
});
