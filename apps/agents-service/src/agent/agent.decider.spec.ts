import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AgentRuleViolation, DEFAULT_VOICE_IDS, type AgentState } from './agent.js';
import { configuredPlatforms, decide, type AgentCommand, type CreateAgent } from './agent.decider.js';
import { evolve, fold } from './agent.evolve.js';
import type { AgentEvent } from './agent.events.js';

const both = ['platform_a', 'platform_b'] as const;
const create = (over: Partial<CreateAgent['input']> = {}, configured: readonly string[] = both): CreateAgent => ({
  type: 'CreateAgent',
  agent_id: 'agt_1',
  account_id: 'acc_1',
  input: { name: 'Front desk', voice_platform: 'platform_a', phone_number: '+14155550100', ...over },
  configured_platforms: configured,
  agent_limit: 50,
  live_agents: 0,
  name_taken: false,
  now: '2026-01-01T00:00:00.000Z',
});
const created = (over: Partial<CreateAgent['input']> = {}) => fold(decide(create(over), undefined))!;
const update = (changes: object, status?: 'active' | 'paused', now = '2026-01-02T00:00:00.000Z'): AgentCommand => ({
  type: 'UpdateAgent',
  changes,
  status,
  configured_platforms: both,
  now,
});
const del: AgentCommand = { type: 'DeleteAgent', now: '2026-01-03T00:00:00.000Z' };
const apply = (state: AgentState, command: AgentCommand) => fold(decide(command, state), state)!;
const violation = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentRuleViolation) return err.detail;
    throw err;
  }
  throw new Error('expected a rule violation');
};

describe('creating an agent', () => {
  it('starts active at version 1 with every default filled in', () => {
    expect(created()).toEqual({
      id: 'agt_1',
      account_id: 'acc_1',
      name: 'Front desk',
      voice_platform: 'platform_a',
      phone_number: '+14155550100',
      voice_id: DEFAULT_VOICE_IDS.platform_a,
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
      metadata: {},
      status: 'active',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      version: 1,
    });
  });

  it('uses each platform its own non-empty default voice', () => {
    expect(created({ voice_platform: 'platform_b' }).voice_id).toBe(DEFAULT_VOICE_IDS.platform_b);
    expect(DEFAULT_VOICE_IDS.platform_a).not.toBe(DEFAULT_VOICE_IDS.platform_b);
    expect(created({ voice_id: 'rachel' }).voice_id).toBe('rachel');
  });

  it('refuses a platform the account has not configured', () => {
    expect(violation(() => decide(create({ voice_platform: 'platform_b' }, ['platform_a']), undefined))).toMatchObject({
      code: 'platform_not_configured',
      field: 'voice_platform',
    });
  });

  it('emits the explicit AgentCreated type', () => {
    expect(decide(create(), undefined).map((e) => e.type)).toEqual(['AgentCreated']);
  });
});

describe('status transitions', () => {
  it('pauses an active agent and resumes a paused one', () => {
    const paused = apply(created(), update({}, 'paused'));
    expect(paused).toMatchObject({ status: 'paused', version: 2, updated_at: '2026-01-02T00:00:00.000Z' });
    expect(decide(update({}, 'active'), paused).map((e) => e.type)).toEqual(['AgentResumed']);
    expect(apply(paused, update({}, 'active'))).toMatchObject({ status: 'active', version: 3 });
  });

  it('treats asking for the current status as a no-op', () => {
    const agent = created();
    expect(decide(update({}, 'active'), agent)).toEqual([]);
    const paused = apply(agent, update({}, 'paused'));
    expect(decide(update({}, 'paused'), paused)).toEqual([]);
  });

  it('deletes an active or a paused agent and releases its number', () => {
    for (const agent of [created(), apply(created(), update({}, 'paused'))]) {
      const events = decide(del, agent);
      expect(events).toEqual([{ type: 'AgentDeleted', data: { deleted_at: '2026-01-03T00:00:00.000Z', released_phone_number: '+14155550100' } }]);
      expect(fold(events, agent)!.status).toBe('deleted');
    }
  });

  it('makes deleted terminal: every later command is not_found', () => {
    const gone = apply(created(), del);
    for (const command of [update({}, 'active'), update({}, 'paused'), update({ name: 'x' }), del]) {
      expect(violation(() => decide(command, gone))).toMatchObject({ code: 'not_found' });
    }
    expect(violation(() => decide(del, undefined))).toMatchObject({ code: 'not_found' });
    expect(violation(() => decide(create(), gone))).toMatchObject({ code: 'concurrent_modification' });
  });
});

describe('updating fields', () => {
  it('records only the fields that change', () => {
    const agent = created({ metadata: { a: '1', b: '2' } });
    const events = decide(update({ name: 'Front desk', language: 'fr', metadata: { b: '2', a: '1' } }), agent);
    expect(events).toEqual([{ type: 'AgentUpdated', data: { changes: { language: 'fr' }, updated_at: '2026-01-02T00:00:00.000Z' } }]);
  });

  it('is a no-op when nothing changes', () => {
    expect(decide(update({ name: 'Front desk', system_prompt: null }), created())).toEqual([]);
  });

  it('clears clearable fields with null and metadata to {}', () => {
    const agent = created({ system_prompt: 'Be kind', transfer_number: '+14155550199', metadata: { k: 'v' } });
    const next = apply(agent, update({ system_prompt: null, transfer_number: null, metadata: null }));
    expect(next).toMatchObject({ system_prompt: null, transfer_number: null, metadata: {} });
  });

  it('combines a field change and a pause into two events', () => {
    const events = decide(update({ name: 'Night desk' }, 'paused'), created());
    expect(events.map((e) => e.type)).toEqual(['AgentUpdated', 'AgentPaused']);
    expect(fold(events, created())).toMatchObject({ name: 'Night desk', status: 'paused', version: 3 });
  });

  it('switches to the new platform default voice unless a voice is named', () => {
    expect(apply(created({ voice_id: 'rachel' }), update({ voice_platform: 'platform_b' })).voice_id).toBe(DEFAULT_VOICE_IDS.platform_b);
    expect(apply(created(), update({ voice_platform: 'platform_b', voice_id: 'bob' })).voice_id).toBe('bob');
  });

  it('refuses switching to a platform the account has not configured', () => {
    const command = { ...update({ voice_platform: 'platform_b' }), configured_platforms: ['platform_a'] } as AgentCommand;
    expect(violation(() => decide(command, created()))).toMatchObject({ code: 'platform_not_configured', field: 'voice_platform' });
  });

  it('keeps the platform check off when the platform does not change', () => {
    const command = { ...update({ voice_platform: 'platform_a', name: 'x' }), configured_platforms: [] } as AgentCommand;
    expect(decide(command, created()).map((e) => e.type)).toEqual(['AgentUpdated']);
  });
});

describe('privacy settings', () => {
  const detected = ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'];

  it('fills the omitted parts of pii_redaction on create: enabled false, every detected category', () => {
    expect(created({ pii_redaction: { enabled: true } as never }).pii_redaction).toEqual({ enabled: true, categories: detected });
    expect(created({ store_content: false }).store_content).toBe(false);
  });

  it('replaces pii_redaction whole on update, and records nothing when it is the same', () => {
    const agent = created({ pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] } });
    const events = decide(update({ pii_redaction: { categories: ['ssn'] } }), agent);
    expect(events).toEqual([
      { type: 'AgentUpdated', data: { changes: { pii_redaction: { enabled: false, categories: ['ssn'] } }, updated_at: '2026-01-02T00:00:00.000Z' } },
    ]);
    expect(decide(update({ pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] } }), agent)).toEqual([]);
  });

  it('keeps retention as sent on create, an omitted or null limit keeping that data', () => {
    expect(created({ retention: { conversations_days: 30 } as never }).retention).toEqual({ conversations_days: 30, recordings_days: null });
    expect(created({ retention: null as never }).retention).toEqual({ conversations_days: null, recordings_days: null });
  });

  it('replaces retention whole on update, and records nothing when it is the same', () => {
    const agent = created({ retention: { conversations_days: 365, recordings_days: 30 } });
    expect(decide(update({ retention: { recordings_days: 7 } }), agent)).toEqual([
      { type: 'AgentUpdated', data: { changes: { retention: { conversations_days: null, recordings_days: 7 } }, updated_at: '2026-01-02T00:00:00.000Z' } },
    ]);
    expect(decide(update({ retention: { recordings_days: 30, conversations_days: 365 } }), agent)).toEqual([]);
  });

  it('gives an agent created before the settings existed their defaults', () => {
    const { pii_redaction: _p, store_content: _s, retention: _r, ...older } = (decide(create(), undefined)[0] as Extract<AgentEvent, { type: 'AgentCreated' }>).data;
    const agent = evolve(undefined, { type: 'AgentCreated', data: older as never });
    expect(agent).toMatchObject({ pii_redaction: { enabled: false, categories: detected }, store_content: true, retention: { conversations_days: null, recordings_days: null } });
  });
});

describe('any command sequence (property)', () => {
  const commandArb: fc.Arbitrary<AgentCommand> = fc.oneof(
    fc.record({
      changes: fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 5 }),
          voice_platform: fc.constantFrom('platform_a' as const, 'platform_b' as const),
          system_prompt: fc.option(fc.string({ maxLength: 3 })),
          metadata: fc.option(fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom('1', '2'))),
        },
        { requiredKeys: [] },
      ),
      status: fc.option(fc.constantFrom('active' as const, 'paused' as const), { nil: undefined }),
    }).map(({ changes, status }) => update(changes, status)),
    fc.constant(del),
  );

  it('never yields an invalid state; versions count events; deleted stays deleted', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 12 }), (commands) => {
        let state = created();
        let events: AgentEvent[] = decide(create(), undefined);
        for (const command of commands) {
          let produced: AgentEvent[];
          try {
            produced = decide(command, state);
          } catch (err) {
            expect(err).toBeInstanceOf(AgentRuleViolation);
            expect(state.status).toBe('deleted');
            continue;
          }
          const wasDeleted = state.status === 'deleted';
          expect(wasDeleted).toBe(false);
          events = [...events, ...produced];
          state = fold(produced, state)!;
          expect(['active', 'paused', 'deleted']).toContain(state.status);
          expect(state.name.length).toBeGreaterThan(0);
          expect(state.voice_id.length).toBeGreaterThan(0);
        }
        expect(state.version).toBe(events.length);
        expect(fold(events)).toEqual(state);
      }),
    );
  });
});

describe('evolve', () => {
  it('refuses a stream that does not start with AgentCreated', () => {
    expect(() => evolve(undefined, { type: 'AgentPaused', data: { paused_at: 'x' } })).toThrow();
  });
});

describe('configured platforms (rule 4.2.2)', () => {
  it('are the platforms the plan includes and the account integrated', () => {
    expect(configuredPlatforms(['platform_a', 'platform_b'], ['platform_b'])).toEqual(['platform_b']);
    expect(configuredPlatforms(['platform_a'], ['platform_a', 'platform_b'])).toEqual(['platform_a']);
    expect(configuredPlatforms(['platform_a', 'platform_b'], [])).toEqual([]);
  });

  it('refuses a create on a platform without an integration', () => {
    expect(violation(() => decide(create({}, configuredPlatforms(both, ['platform_b'])), undefined))).toMatchObject({
      code: 'platform_not_configured',
      field: 'voice_platform',
    });
  });
});

describe('a number bought on the platform', () => {
  const assign = (phone_number: string): AgentCommand => ({ type: 'AssignPhoneNumber', phone_number, now: '2026-01-04T00:00:00.000Z' });

  it('becomes the number of an agent created without one, once', () => {
    const agent = created({ phone_number: null });
    expect(agent.phone_number).toBeNull();
    const assigned = apply(agent, assign('+14155550142'));
    expect(assigned).toMatchObject({ phone_number: '+14155550142', version: 2, updated_at: '2026-01-04T00:00:00.000Z' });
    expect(decide(assign('+14155550143'), assigned)).toEqual([]);
  });

  it('is never assigned to an agent that has a number or was deleted', () => {
    expect(decide(assign('+14155550142'), created())).toEqual([]);
    expect(decide(assign('+14155550142'), apply(created({ phone_number: null }), del))).toEqual([]);
  });

  it('replaces a bought number the platform lost, only while it is still the agent’s', () => {
    const replace = (phone_number: string, replacing: string): AgentCommand => ({ type: 'AssignPhoneNumber', phone_number, replacing, now: '2026-01-04T00:00:00.000Z' });
    const agent = created();
    expect(apply(agent, replace('+14155550177', agent.phone_number!))).toMatchObject({ phone_number: '+14155550177', version: 2 });
    expect(decide(replace('+14155550177', '+14155550999'), agent)).toEqual([]);
    expect(decide(replace(agent.phone_number!, agent.phone_number!), agent)).toEqual([]);
    expect(decide(replace('+14155550177', agent.phone_number!), apply(agent, del))).toEqual([]);
  });
});

describe('withdrawing an agent its platform refused', () => {
  const withdraw: AgentCommand = { type: 'WithdrawRefusedAgent', now: '2026-01-05T00:00:00.000Z' };

  it('deletes it with the reason, once', () => {
    const events = decide(withdraw, created());
    expect(events).toEqual([
      { type: 'AgentDeleted', data: { deleted_at: '2026-01-05T00:00:00.000Z', released_phone_number: '+14155550100', reason: 'platform_refused' } },
    ]);
    const gone = fold(events, created())!;
    expect(gone.status).toBe('deleted');
    expect(decide(withdraw, gone)).toEqual([]);
  });
});
