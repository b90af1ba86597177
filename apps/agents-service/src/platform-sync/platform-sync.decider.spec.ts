import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { VoicePlatform } from '@voice/contracts';
import { VOICE_PLATFORM_DEFINITIONS, type PlatformAgentSpec } from '@voice/voice-platforms';
import {
  applyStep, DEFAULT_AREA_CODE, desiredPlatformAgent, planPlatformSync, SYNC_PLATFORMS, type DesiredPlatformAgent, type NumberFacts, type PlatformFacts, type PlatformSyncStep,
  type StepResult, type SyncFacts,
} from './platform-sync.decider.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_1',
  name: 'Front desk',
  system_prompt: 'Be kind.',
  welcome_message: 'Hello',
  voice_id: 'pa-voice-warm',
  language: 'en-US',
  transfer_number: null,
  webhook_url: 'https://hooks.example/a',
};

const desired = (overrides: Partial<DesiredPlatformAgent> = {}): DesiredPlatformAgent => ({
  status: 'active', voice_platform: 'platform_a', spec, phone_number: null, area_code: '415', ...overrides,
});

const number = (overrides: Partial<NumberFacts> = {}): NumberFacts => ({
  phone_number: '+14155550100', platform_number_id: 'n-1', purchased: true, bound_to: 'pa-1', ...overrides,
});

const synced = (overrides: Partial<PlatformFacts> = {}): PlatformFacts => ({ platform_agent_id: 'pa-1', spec, number: number(), ...overrides });

describe('planPlatformSync', () => {
  it('create with no number: find or create the agent, then buy a number bound to it', () => {
    expect(planPlatformSync(desired(), {})).toEqual([
      { type: 'find_or_create_agent', platform: 'platform_a', spec },
      { type: 'acquire_number', platform: 'platform_a', phone_number: null, area_code: '415', bind: true },
    ]);
  });

  it('create with the customer number: imports it', () => {
    expect(planPlatformSync(desired({ phone_number: '+14155550199' }), {})[1]).toEqual(
      { type: 'acquire_number', platform: 'platform_a', phone_number: '+14155550199', area_code: '415', bind: true },
    );
  });

  it('create paused: the number is acquired unbound', () => {
    expect(planPlatformSync(desired({ status: 'paused' }), {})[1]).toMatchObject({ type: 'acquire_number', bind: false });
  });

  it('nothing to do when the facts match', () => {
    expect(planPlatformSync(desired(), { platform_a: synced() })).toEqual([]);
    expect(planPlatformSync(desired({ phone_number: '+14155550100' }), { platform_a: synced() })).toEqual([]);
    expect(planPlatformSync(desired({ status: 'paused' }), { platform_a: synced({ number: number({ bound_to: null }) }) })).toEqual([]);
    expect(planPlatformSync(desired({ status: 'deleted' }), {})).toEqual([]);
  });

  it('update: only the changed fields', () => {
    const next = { ...spec, name: 'Reception', transfer_number: '+14155550123' };
    expect(planPlatformSync(desired({ spec: next }), { platform_a: synced() })).toEqual([
      { type: 'update_agent', platform: 'platform_a', changes: { name: 'Reception', transfer_number: '+14155550123' }, spec: next },
    ]);
  });

  it('an agent recorded without the spec sent gets every field', () => {
    const [step] = planPlatformSync(desired(), { platform_a: synced({ spec: null }) });
    expect(step).toMatchObject({ type: 'update_agent', changes: { name: spec.name, voice_id: spec.voice_id, webhook_url: spec.webhook_url } });
  });

  it('pause unbinds, resume binds', () => {
    expect(planPlatformSync(desired({ status: 'paused' }), { platform_a: synced() })).toEqual([{ type: 'unbind_number', platform: 'platform_a' }]);
    expect(planPlatformSync(desired(), { platform_a: synced({ number: number({ bound_to: null }) }) })).toEqual([{ type: 'bind_number', platform: 'platform_a' }]);
  });

  it('a number bound to another (stale) agent is rebound', () => {
    expect(planPlatformSync(desired(), { platform_a: synced({ number: number({ bound_to: 'pa-old' }) }) })).toEqual([{ type: 'bind_number', platform: 'platform_a' }]);
  });

  it('delete: unbind, release a purchased number, delete the platform agent', () => {
    expect(planPlatformSync(desired({ status: 'deleted' }), { platform_a: synced() })).toEqual([
      { type: 'unbind_number', platform: 'platform_a' },
      { type: 'release_number', platform: 'platform_a', release: true },
      { type: 'delete_agent', platform: 'platform_a' },
    ]);
  });

  it('delete: an imported number is only unbound and forgotten, never released', () => {
    expect(planPlatformSync(desired({ status: 'deleted' }), { platform_a: synced({ number: number({ purchased: false }) }) })).toEqual([
      { type: 'unbind_number', platform: 'platform_a' },
      { type: 'release_number', platform: 'platform_a', release: false },
      { type: 'delete_agent', platform: 'platform_a' },
    ]);
  });

  it('switch platform: create on the new one, import the same number bound there, unbind it on the old one (kept), delete the old agent', () => {
    expect(planPlatformSync(desired({ voice_platform: 'platform_b' }), { platform_a: synced() })).toEqual([
      { type: 'find_or_create_agent', platform: 'platform_b', spec },
      { type: 'acquire_number', platform: 'platform_b', phone_number: '+14155550100', area_code: '415', bind: true },
      { type: 'unbind_number', platform: 'platform_a' },
      { type: 'delete_agent', platform: 'platform_a' },
    ]);
  });

  it('switching back finds the number still held on the old platform: only a bind', () => {
    const facts: SyncFacts = {
      platform_a: { platform_agent_id: null, spec: null, number: number({ bound_to: null }) },
      platform_b: { platform_agent_id: 'pb-1', spec, number: number({ platform_number_id: 'uuid-1', purchased: false, bound_to: 'pb-1' }) },
    };
    expect(planPlatformSync(desired(), facts)).toEqual([
      { type: 'find_or_create_agent', platform: 'platform_a', spec },
      { type: 'bind_number', platform: 'platform_a' },
      { type: 'unbind_number', platform: 'platform_b' },
      { type: 'delete_agent', platform: 'platform_b' },
    ]);
  });

  it('changed phone number: the old one is unbound and released, the new one imported and bound', () => {
    expect(planPlatformSync(desired({ phone_number: '+14155550199' }), { platform_a: synced() })).toEqual([
      { type: 'unbind_number', platform: 'platform_a' },
      { type: 'release_number', platform: 'platform_a', release: true },
      { type: 'acquire_number', platform: 'platform_a', phone_number: '+14155550199', area_code: '415', bind: true },
    ]);
  });

  it('a deleted agent is removed from every platform it was on', () => {
    const facts: SyncFacts = { platform_a: synced({ number: number({ bound_to: null }) }), platform_b: synced({ platform_agent_id: 'pb-1', number: null }) };
    expect(planPlatformSync(desired({ status: 'deleted' }), facts)).toEqual([
      { type: 'release_number', platform: 'platform_a', release: true },
      { type: 'delete_agent', platform: 'platform_a' },
      { type: 'delete_agent', platform: 'platform_b' },
    ]);
  });
});

describe('applyStep', () => {
  it('records the agent, the number and the binding; forgets what was removed', () => {
    let facts: SyncFacts = {};
    facts = applyStep(facts, { type: 'find_or_create_agent', platform: 'platform_a', spec }, { platform_agent_id: 'pa-9' });
    facts = applyStep(facts, { type: 'acquire_number', platform: 'platform_a', phone_number: null, area_code: null, bind: true }, {
      phone_number: '+14155550111', platform_number_id: '+14155550111', purchased: true,
    });
    expect(facts).toEqual({ platform_a: { platform_agent_id: 'pa-9', spec, number: { phone_number: '+14155550111', platform_number_id: '+14155550111', purchased: true, bound_to: 'pa-9' } } });
    facts = applyStep(facts, { type: 'delete_agent', platform: 'platform_a' });
    expect(facts.platform_a).toEqual({ platform_agent_id: null, spec: null, number: expect.objectContaining({ bound_to: null }) });
    facts = applyStep(facts, { type: 'release_number', platform: 'platform_a', release: true });
    expect(facts).toEqual({});
  });

  it('refuses a step whose prerequisites are not recorded', () => {
    expect(() => applyStep({}, { type: 'bind_number', platform: 'platform_a' })).toThrow(/no number or no agent/);
  });
});

describe('convergence (property)', () => {
  const platformArb = fc.constantFrom<VoicePlatform>(...SYNC_PLATFORMS);
  const e164 = fc.constantFrom('+14155550100', '+14155550101', '+14155550102');
  const agentId = fc.constantFrom('pa-1', 'pa-2', 'pb-1');
  const specArb = fc.record({
    external_id: fc.constant('agt_1'),
    name: fc.constantFrom('A', 'B'),
    system_prompt: fc.constantFrom(null, 'p'),
    welcome_message: fc.constantFrom(null, 'w'),
    voice_id: fc.constantFrom('v1', 'v2'),
    language: fc.constantFrom('en', 'fr'),
    transfer_number: fc.constantFrom(null, '+14155550123'),
    webhook_url: fc.constantFrom('https://h/a', 'https://h/b'),
  });
  const numberArb = fc.record({
    phone_number: e164, platform_number_id: fc.constantFrom('n1', 'n2'), purchased: fc.boolean(), bound_to: fc.option(agentId, { nil: null }),
  });
  const platformFactsArb = fc.record({
    platform_agent_id: fc.option(agentId, { nil: null }), spec: fc.option(specArb, { nil: null }), number: fc.option(numberArb, { nil: null }),
  });
  const factsArb = fc.record({ platform_a: platformFactsArb, platform_b: platformFactsArb }, { requiredKeys: [] });
  const desiredArb = fc.record({
    status: fc.constantFrom<DesiredPlatformAgent['status']>('active', 'paused', 'deleted'),
    voice_platform: platformArb,
    spec: specArb,
    phone_number: fc.option(e164, { nil: null }),
    area_code: fc.constantFrom(null, '415'),
  });

  /** What the platform would answer: the found/created agent, the imported number itself or any bought one. */
  function resultFor(step: PlatformSyncStep, pick: number): StepResult {
    if (step.type === 'find_or_create_agent') return { platform_agent_id: ['pa-1', 'pa-7', 'pb-3'][pick % 3] };
    if (step.type === 'acquire_number') {
      const phone = step.phone_number ?? ['+14155550100', '+14155550177'][pick % 2];
      return { phone_number: phone, platform_number_id: `id-${pick}`, purchased: step.phone_number === null };
    }
    return undefined;
  }

  it('applying a plan yields facts with an empty plan, from any starting facts', () => {
    fc.assert(
      fc.property(desiredArb, factsArb, fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (want, start, picks) => {
        const plan = planPlatformSync(want, start as SyncFacts);
        const end = plan.reduce((facts, step, index) => applyStep(facts, step, resultFor(step, picks[index % picks.length])), start as SyncFacts);
        expect(planPlatformSync(want, end)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('a plan never creates twice, and never touches a platform it holds nothing on other than the current one', () => {
    fc.assert(
      fc.property(desiredArb, factsArb, (want, start) => {
        const plan = planPlatformSync(want, start as SyncFacts);
        expect(plan.filter((step) => step.type === 'find_or_create_agent').length).toBeLessThanOrEqual(1);
        for (const step of plan) {
          if (step.platform === want.voice_platform && want.status !== 'deleted') continue;
          expect((start as SyncFacts)[step.platform]).toBeDefined();
        }
      }),
    );
  });
});

describe('desiredPlatformAgent', () => {
  const agent = {
    id: 'agt_1', account_id: 'acc_1', name: 'Desk', voice_platform: 'platform_b' as const, phone_number: null, voice_id: 'platform_b-default-voice',
    language: 'en', system_prompt: 'Be kind.', welcome_message: 'Hi', transfer_number: '+13125550100', business_hours: null, recording_enabled: true,
    transcription_enabled: true, pii_redaction: { enabled: false, categories: [] }, store_content: true,
    retention: { conversations_days: null, recordings_days: null }, status: 'paused' as const, metadata: {}, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', version: 2,
  };

  it('carries the agent’s fields, our id as external id and the integration’s webhook URL; maps old default voice ids', () => {
    expect(desiredPlatformAgent(agent, 'https://api.example/v1/webhooks/platform_b/int_1')).toEqual({
      status: 'paused',
      voice_platform: 'platform_b',
      spec: {
        external_id: 'agt_1', name: 'Desk', system_prompt: 'Be kind.', welcome_message: 'Hi', voice_id: 'pb-voice-default', language: 'en',
        transfer_number: '+13125550100', webhook_url: 'https://api.example/v1/webhooks/platform_b/int_1',
      },
      phone_number: null,
      area_code: '312',
    });
  });

  it('buys platform_b numbers in the default area without a North American transfer number, and names no area on platform_a', () => {
    expect(desiredPlatformAgent({ ...agent, transfer_number: '+442071838750' }, '').area_code).toBe(DEFAULT_AREA_CODE);
    expect(desiredPlatformAgent({ ...agent, transfer_number: null }, '').area_code).toBe(DEFAULT_AREA_CODE);
    expect(desiredPlatformAgent({ ...agent, voice_platform: 'platform_a', voice_id: 'pa-voice-warm' }, '')).toMatchObject({ area_code: null, spec: { voice_id: 'pa-voice-warm' } });
  });

  it('names an area exactly for the registered platforms whose definition says buying needs one, and plans for every registered platform', () => {
    for (const definition of Object.values(VOICE_PLATFORM_DEFINITIONS)) {
      const area = desiredPlatformAgent({ ...agent, voice_platform: definition.platform }, '').area_code;
      expect([definition.platform, area]).toEqual([definition.platform, definition.numberPurchase === 'area_code_required' ? '312' : null]);
    }
    expect(SYNC_PLATFORMS).toEqual(Object.keys(VOICE_PLATFORM_DEFINITIONS));
  });
});
