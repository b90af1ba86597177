import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, type AgentReply } from '@voice/contracts';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';

describe('agents.create over NATS', () => {
  let h: AgentsHarness;
  beforeAll(async () => {
    h = await startAgentsHarness('create');
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (account: ReturnType<typeof newAccount>, body: unknown) => h.attempt<AgentReply>(AgentsRpc.create, { account, body });

  it('a create repeated with the same Idempotency-Key is the same agent, never a duplicate_name; another key or account is a new create', async () => {
    const account = await h.account();
    const body = { name: 'Keyed desk', voice_platform: 'platform_a' };
    const first = await h.rpc<AgentReply>(AgentsRpc.create, { account, body, idempotency_key: 'create-7f3a' });
    const again = await h.rpc<AgentReply>(AgentsRpc.create, { account, body, idempotency_key: 'create-7f3a' });
    expect(again.agent).toEqual(first.agent);
    expect(h.simulators.platformA.agents().filter((a) => a.metadata?.external_id === first.agent.id)).toHaveLength(1);
    expect(await create(account, body)).toMatchObject({ ok: false, error: { code: 'duplicate_name' } });
    const other = await h.account();
    const theirs = await h.rpc<AgentReply>(AgentsRpc.create, { account: other, body, idempotency_key: 'create-7f3a' });
    expect(theirs.agent.id).not.toBe(first.agent.id);
  });

  it('the same keyed create twice at once (a retry racing an attempt whose answer was lost) is one agent, both answered with it', async () => {
    const account = await h.account();
    const body = { name: 'Raced desk', voice_platform: 'platform_a' };
    const request = { account, body, idempotency_key: 'create-race-1' };
    const [one, two] = await Promise.all([h.attempt<AgentReply>(AgentsRpc.create, request), h.attempt<AgentReply>(AgentsRpc.create, request)]);
    expect(one).toMatchObject({ ok: true });
    expect(two).toMatchObject({ ok: true });
    if (!one.ok || !two.ok) return;
    expect(two.value.agent.id).toBe(one.value.agent.id);
    expect(h.simulators.platformA.agents().filter((a) => a.metadata?.external_id === one.value.agent.id)).toHaveLength(1);
  });

  it('creates an active agent with every field, defaults and a number bought on its platform', async () => {
    const account = await h.account();
    const result = await create(account, { name: '  Front desk  ', voice_platform: 'platform_b' });
    expect(result.ok).toBe(true);
    const { agent, version } = (result as { value: AgentReply }).value;
    // AgentCreated, then AgentPhoneNumberAssigned once the platform sold the number.
    expect(version).toBe(2);
    const assistant = h.simulators.platformB.agents().find((a) => a.metadata?.externalId === agent.id);
    const number = h.simulators.platformB.phoneNumbers().find((n) => n.number === agent.phone_number);
    expect(assistant).toBeDefined();
    expect(number).toMatchObject({ assistantId: assistant!.id });
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_[0-9a-f]{24}$/),
      name: 'Front desk',
      voice_platform: 'platform_b',
      phone_number: expect.stringMatching(/^\+1415\d{7}$/),
      voice_id: 'pb-voice-default',
      language: 'en',
      system_prompt: null,
      welcome_message: null,
      transfer_number: null,
      business_hours: null,
      recording_enabled: true,
      transcription_enabled: true,
      pii_redaction: { enabled: false, categories: ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'] },
      store_content: true,
      retention: { conversations_days: null, recordings_days: null },
      status: 'active',
      metadata: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
      platform_sync: {
        state: 'synced', platform_agent_id: assistant!.id, synced_version: 2, last_attempt_at: expect.any(String), last_error: null,
        last_reconciled_at: null, last_drift: null,
      },
    });
    expect(new Date(agent.created_at).toISOString()).toBe(agent.created_at);
  });

  it('answers with the agent’s row as the inline sync left it: what a read then returns, synced or retrying', async () => {
    const account = await h.account();
    const bought = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Row desk', voice_platform: 'platform_b' } });
    expect(bought.agent.platform_sync.state).toBe('synced');
    expect(await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: bought.agent.id })).toEqual(bought);

    h.simulators.platformA.faults.serverError({ count: 1, status: 503 });
    const retrying = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Row desk retrying', voice_platform: 'platform_a' } });
    expect(retrying.agent.platform_sync).toMatchObject({ state: 'pending', last_error: { code: 'platform_unavailable' }, last_attempt_at: expect.any(String) });
    const read = await h.rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: retrying.agent.id });
    // Unless the background retry already ran (its due time passed), the read is the same row.
    if (read.agent.platform_sync.state === 'pending') expect(read).toEqual(retrying);
  });

  it('keeps every given field', async () => {
    const body = {
      name: 'Support',
      voice_platform: 'platform_a',
      phone_number: '+442071838750',
      voice_id: 'pa-voice-warm',
      language: 'de',
      system_prompt: 'Be brief.',
      welcome_message: 'Hallo!',
      transfer_number: '+442071838751',
      business_hours: { timezone: 'Europe/Berlin', schedule: [{ day: 'saturday', open: '10:00', close: '14:00' }] },
      recording_enabled: false,
      transcription_enabled: false,
      pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] },
      store_content: false,
      retention: { conversations_days: 90, recordings_days: 30 },
      metadata: { team: 'emea' },
    };
    const result = await create(await h.account(), body);
    expect(result).toMatchObject({ ok: true, value: { version: 1, agent: { ...body, status: 'active', platform_sync: { state: 'synced', synced_version: 1 } } } });
    const onPlatform = h.simulators.platformA.agents().find((a) => a.metadata?.external_id === (result as { value: AgentReply }).value.agent.id);
    expect(onPlatform).toMatchObject({ agent_name: 'Support', voice_id: 'pa-voice-warm', prompt: 'Be brief.', begin_message: 'Hallo!', transfer_number: '+442071838751' });
    expect(h.simulators.platformA.phoneNumbers().find((n) => n.phone_number === '+442071838750')).toMatchObject({ inbound_agent_id: onPlatform!.agent_id, purchased: false });
  });

  it('treats null optional fields as omitted', async () => {
    const result = await create(await h.account(), {
      name: 'Nulls',
      voice_platform: 'platform_a',
      phone_number: null,
      voice_id: null,
      language: null,
      recording_enabled: null,
      metadata: null,
      business_hours: null,
    });
    expect(result).toMatchObject({
      ok: true,
      value: { agent: { phone_number: expect.stringMatching(/^\+1\d{10}$/), voice_id: 'pa-voice-default', language: 'en', recording_enabled: true, metadata: {}, business_hours: null } },
    });
  });

  it('gives each auto-provisioned agent its own number', async () => {
    const account = await h.account();
    const numbers = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await create(account, { name: `Provisioned ${i}`, voice_platform: 'platform_a' });
      numbers.add((r as { value: AgentReply }).value.agent.phone_number!);
    }
    expect(numbers.size).toBe(5);
  });

  it('reports validation problems as structured codes with the field', async () => {
    const account = await h.account();
    expect(await create(account, { voice_platform: 'platform_a' })).toEqual({
      ok: false,
      error: { code: 'missing_required_field', field: 'name', message: expect.any(String) },
    });
    expect(await create(account, { name: 'x', voice_platform: 'platform_z' })).toEqual({
      ok: false,
      error: { code: 'invalid_parameter', field: 'voice_platform', message: expect.any(String), valid_values: ['platform_a', 'platform_b'] },
    });
    expect(await create(account, { name: 42, voice_platform: 'platform_a' })).toMatchObject({ ok: false, error: { code: 'invalid_parameter', field: 'name' } });
    expect(
      await create(account, {
        name: 'x',
        voice_platform: 'platform_a',
        business_hours: { timezone: 'UTC', schedule: [{ day: 'monday', open: '09:00', close: '25:00' }] },
      }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_parameter', field: 'business_hours.schedule[0].close' } });
    expect(await create(account, { name: 'x', voice_platform: 'platform_a', metadata: { foo: 1 } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter', field: 'metadata.foo' },
    });
    expect(await create(account, { name: 'x', voice_platform: 'platform_a', status: 'paused' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter', field: 'status' },
    });
    expect(await create(account, 'not an object')).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('refuses a platform the account has not configured', async () => {
    expect(await create(await h.account({ voice_platforms: ['platform_a'] }), { name: 'B', voice_platform: 'platform_b' })).toMatchObject({
      ok: false,
      error: { code: 'platform_not_configured', field: 'voice_platform' },
    });
  });

  it('refuses a name already used in the account, ignoring case and surrounding spaces', async () => {
    const account = await h.account();
    expect((await create(account, { name: 'Sales', voice_platform: 'platform_a' })).ok).toBe(true);
    for (const name of ['Sales', 'sales', '  SALES ']) {
      expect(await create(account, { name, voice_platform: 'platform_a' })).toMatchObject({ ok: false, error: { code: 'duplicate_name', field: 'name' } });
    }
    expect((await create(await h.account(), { name: 'Sales', voice_platform: 'platform_a' })).ok).toBe(true);
  });

  it('refuses a phone number another agent holds, across accounts', async () => {
    expect((await create(await h.account(), { name: 'One', voice_platform: 'platform_a', phone_number: '+14155550123' })).ok).toBe(true);
    expect(await create(await h.account(), { name: 'Two', voice_platform: 'platform_a', phone_number: '+14155550123' })).toMatchObject({
      ok: false,
      error: { code: 'phone_number_in_use', field: 'phone_number' },
    });
  });

  it('enforces the quota with limit and current', async () => {
    const account = await h.account({ agent_limit: 2 });
    expect((await create(account, { name: 'A', voice_platform: 'platform_a' })).ok).toBe(true);
    expect((await create(account, { name: 'B', voice_platform: 'platform_a', phone_number: '+14155550777' })).ok).toBe(true);
    for (const body of [{ name: 'C', voice_platform: 'platform_a' }, { name: 'C', voice_platform: 'platform_a', phone_number: '+14155550778' }]) {
      expect(await create(account, body)).toEqual({
        ok: false,
        error: { code: 'quota_exceeded', limit: 2, current: 2, message: expect.any(String) },
      });
    }
  });

  describe('under concurrency (enforced by the database)', () => {
    // With explicit numbers no pre-check runs before the transaction: the check under the account lock decides.
    it.each([
      ['auto-provisioned numbers', (_i: number) => ({})],
      ['explicit numbers', (i: number) => ({ phone_number: `+1415555080${i}` })],
    ])('lets exactly one of 8 simultaneous creates with one name succeed (%s)', async (_label, extra) => {
      const account = await h.account();
      const names = ['Reception', 'reception', ' RECEPTION', 'Reception ', 'ReCePtIoN', 'reception', '  reception  ', 'RECEPTION'];
      const results = await Promise.all(names.map((name, i) => create(account, { name, voice_platform: 'platform_a', ...extra(i) })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const failures = results.filter((r) => !r.ok) as Array<{ error: { code: string; field?: string } }>;
      expect(failures).toHaveLength(7);
      for (const f of failures) expect(f.error).toMatchObject({ code: 'duplicate_name', field: 'name' });
    });

    it('never exceeds the quota: 10 parallel creates at limit 3 give exactly 3 agents', async () => {
      const account = await h.account({ agent_limit: 3 });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => create(account, { name: `Parallel ${i}`, voice_platform: 'platform_a' })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      for (const r of results.filter((r) => !r.ok) as Array<{ error: unknown }>) {
        expect(r.error).toEqual({ code: 'quota_exceeded', limit: 3, current: 3, message: expect.any(String) });
      }
      const list = await h.rpc(AgentsRpc.list, { account_id: account.id, query: {} });
      expect(list.total).toBe(3);
    });

    it('gives 8 simultaneous creates with one explicit number exactly one success', async () => {
      const accounts = await Promise.all(Array.from({ length: 8 }, () => h.account()));
      const results = await Promise.all(
        accounts.map((account, i) => create(account, { name: `Caller ${i}`, voice_platform: 'platform_a', phone_number: '+14155550999' })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const r of results.filter((r) => !r.ok) as Array<{ error: unknown }>) expect(r.error).toMatchObject({ code: 'phone_number_in_use' });
    });

    it('a refused create leaves no event behind: every stored event is explained by a read-model row', async () => {
      // The read model is projected in the append's transaction, so an invariant refused by a unique index
      // (after the event was inserted) must roll the event back with it.
      // The agents' own streams only: the platform sync keeps a stream of its own per agent.
      const { rows } = await h.db.query(
        `SELECT (SELECT count(*)::int FROM agents.events WHERE stream_id LIKE 'agent-agt%') AS events,
                (SELECT sum(version)::int FROM agents.agents) AS versions,
                (SELECT count(*)::int FROM agents.events e WHERE e.stream_id LIKE 'agent-agt%' AND NOT EXISTS (
                   SELECT 1 FROM agents.agents a WHERE e.stream_id = 'agent-' || a.id AND a.version >= e.stream_version)) AS orphans`,
      );
      expect(rows[0].orphans).toBe(0);
      expect(rows[0].events).toBe(rows[0].versions);
    });
  });
});
