import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AccountContext, type AgentReply } from '@voice/contracts';
import { newAccount, numberSequence, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

const uniqueNumber = numberSequence('+1415556');

describe('agents.update over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('update');
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (account: AccountContext, body: Record<string, unknown>) =>
    // With a number of its own, a new agent is at version 1 (a bought number adds AgentPhoneNumberAssigned).
    h.rpc<AgentReply>(AgentsRpc.create, { account, body: { voice_platform: 'platform_a', phone_number: uniqueNumber(), ...body } });
  const update = (account: AccountContext, agent_id: string, body: unknown, expected_version?: number) =>
    h.attempt<AgentReply>(AgentsRpc.update, { account, agent_id, body, expected_version });
  const ok = (r: { ok: boolean; value?: AgentReply; error?: unknown }) => {
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.value!;
  };
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('changes only the given fields, with a new updated_at and version', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Desk', system_prompt: 'Old', metadata: { a: '1' } });
    await tick();
    const updated = ok(await update(account, agent.id, { name: 'Front Desk', system_prompt: null, metadata: { b: '2' }, language: 'fr' }));
    expect(updated.version).toBe(2);
    expect(updated.agent).toEqual({
      ...agent,
      name: 'Front Desk',
      system_prompt: null,
      metadata: { b: '2' },
      language: 'fr',
      updated_at: expect.any(String),
      platform_sync: { ...agent.platform_sync, state: 'synced', synced_version: 2, last_attempt_at: expect.any(String) },
    });
    expect(updated.agent.updated_at > agent.updated_at).toBe(true);
    expect(await h.rpc(AgentsRpc.get, { account_id: account.id, agent_id: agent.id })).toEqual(updated);
  });

  it('pauses and resumes; repeating the current status changes nothing', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Night' });
    const paused = ok(await update(account, agent.id, { status: 'paused' }));
    expect(paused).toMatchObject({ version: 2, agent: { status: 'paused' } });
    expect(ok(await update(account, agent.id, { status: 'paused' }))).toEqual(paused);
    expect(ok(await update(account, agent.id, {}))).toEqual(paused);
    expect(ok(await update(account, agent.id, { status: 'active' }))).toMatchObject({ version: 3, agent: { status: 'active' } });
    expect(await update(account, agent.id, { status: 'deleted' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter', field: 'status', valid_values: ['active', 'paused'] },
    });
  });

  it('applies the create invariants: duplicate name, platform configured, phone in use', async () => {
    const account = await h.account({ voice_platforms: ['platform_a'] });
    await create(account, { name: 'Taken', phone_number: '+14155551001' });
    const { agent } = await create(account, { name: 'Mine' });
    expect(await update(account, agent.id, { name: ' taken ' })).toMatchObject({ ok: false, error: { code: 'duplicate_name', field: 'name' } });
    expect(await update(account, agent.id, { voice_platform: 'platform_b' })).toMatchObject({
      ok: false,
      error: { code: 'platform_not_configured', field: 'voice_platform' },
    });
    expect(await update(account, agent.id, { phone_number: '+14155551001' })).toMatchObject({
      ok: false,
      error: { code: 'phone_number_in_use', field: 'phone_number' },
    });
    // Renaming to a different casing of its own name is not a duplicate.
    expect(ok(await update(account, agent.id, { name: 'MINE' })).agent.name).toBe('MINE');
  });

  it('releases the old number when the number changes', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Mover', phone_number: '+14155551002' });
    ok(await update(account, agent.id, { phone_number: '+14155551003' }));
    expect(ok(await h.attempt(AgentsRpc.create, { account, body: { name: 'Heir', voice_platform: 'platform_a', phone_number: '+14155551002' } })).agent.phone_number).toBe(
      '+14155551002',
    );
  });

  it('switches to the new platform default voice', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Switcher', voice_id: 'pa-voice-warm' });
    expect(ok(await update(account, agent.id, { voice_platform: 'platform_b' })).agent).toMatchObject({
      voice_platform: 'platform_b',
      voice_id: 'pb-voice-default',
    });
  });

  it('refuses invalid, read-only and unknown fields with the field path', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Strict' });
    for (const [body, field] of [
      [{ id: 'x' }, 'id'],
      [{ created_at: 'x' }, 'created_at'],
      [{ colour: 'red' }, 'colour'],
      [{ name: null }, 'name'],
      [{ recording_enabled: 'yes' }, 'recording_enabled'],
      [{ business_hours: { timezone: 'UTC', schedule: [{ day: 'monday', open: '9', close: '10:00' }] } }, 'business_hours.schedule[0].open'],
    ] as const) {
      expect(await update(account, agent.id, body)).toMatchObject({ ok: false, error: { code: 'invalid_parameter', field } });
    }
  });

  it('is not_found for another account, an unknown id and a deleted agent', async () => {
    const account = await h.account();
    const { agent } = await create(account, { name: 'Hidden' });
    expect(await update(await h.account(), agent.id, { name: 'Stolen' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await update(account, 'agt_unknown', { name: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: agent.id });
    expect(await update(account, agent.id, { status: 'active' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  describe('optimistic concurrency', () => {
    it('honours expected_version and refuses a stale one', async () => {
      const account = await h.account();
      const { agent, version } = await create(account, { name: 'Versioned' });
      expect(ok(await update(account, agent.id, { name: 'V2' }, version)).version).toBe(2);
      expect(await update(account, agent.id, { name: 'V3' }, version)).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
      expect((await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agent.id })).agent.name).toBe('V2');
    });

    it('with one expected version, exactly one of many simultaneous updates wins', async () => {
      const account = await h.account();
      const { agent, version } = await create(account, { name: 'Race' });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => update(account, agent.id, { welcome_message: `hi ${i}` }, version)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const r of results.filter((r) => !r.ok)) expect(r).toMatchObject({ error: { code: 'precondition_failed' } });
    });

    it('without an expected version, simultaneous updates are retried and never lost silently', async () => {
      const account = await h.account();
      const { agent } = await create(account, { name: 'Busy' });
      const results = await Promise.all(Array.from({ length: 2 }, (_, i) => update(account, agent.id, { metadata: { [`k${i}`]: 'v' } })));
      expect(results.every((r) => r.ok)).toBe(true);
      const final = await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agent.id });
      expect(final.version).toBe(3);
    });
  });
});
