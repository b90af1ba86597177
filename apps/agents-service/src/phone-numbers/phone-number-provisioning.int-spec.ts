import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';
import type { PhoneNumberProvisioner } from './phone-number-provisioner.js';

describe('built-in phone number provisioning', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('phones');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('skips numbers live agents hold and hands out E.164 numbers', async () => {
    const account = newAccount();
    // The sequence starts at 1: these are the next two numbers it would produce.
    await h.rpc(AgentsRpc.create, { account, body: { name: 'Squatter 1', voice_platform: 'platform_a', phone_number: '+15550000001' } });
    await h.rpc(AgentsRpc.create, { account, body: { name: 'Squatter 2', voice_platform: 'platform_a', phone_number: '+15550000002' } });
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Fresh', voice_platform: 'platform_a' } });
    expect(agent.phone_number).toBe('+15550000003');
  });
});

describe('a plugged-in phone number provider', () => {
  let h: AgentsHarness;
  const calls: string[] = [];
  let next = 0;
  const provider: PhoneNumberProvisioner = {
    async provision({ account_id }) {
      next += 1;
      calls.push(`provision:${account_id}`);
      return `+4930123450${next}`;
    },
    async release(number) {
      calls.push(`release:${number}`);
    },
  };
  beforeAll(async () => {
    h = await startAgentsHarness('provider', { phoneNumberProvisioner: () => provider });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('provisions through the port, never for a refused create, and releases on delete and on number change', async () => {
    const account = newAccount({ agent_limit: 2 });
    const first = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'One', voice_platform: 'platform_a' } });
    expect(first.agent.phone_number).toBe('+49301234501');
    // Refused before provisioning: duplicate name, unconfigured platform.
    await h.attempt(AgentsRpc.create, { account, body: { name: 'one', voice_platform: 'platform_a' } });
    await h.attempt(AgentsRpc.create, { account: { ...account, voice_platforms: [] }, body: { name: 'Two', voice_platform: 'platform_a' } });
    const second = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Two', voice_platform: 'platform_a' } });
    // At the quota: refused before provisioning as well.
    expect(await h.attempt(AgentsRpc.create, { account, body: { name: 'Three', voice_platform: 'platform_a' } })).toMatchObject({
      ok: false,
      error: { code: 'quota_exceeded' },
    });
    await h.rpc(AgentsRpc.update, { account, agent_id: second.agent.id, body: { phone_number: '+14155559000' } });
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: first.agent.id });
    expect(calls).toEqual([
      `provision:${account.id}`,
      `provision:${account.id}`,
      'release:+49301234502',
      'release:+49301234501',
    ]);
  });
});
