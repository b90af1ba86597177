import { describe, expect, it } from '@jest/globals';
import type { ServiceError } from '@voice/contracts';
import { AgentRuleViolation, type AgentState } from './agent.js';
import { creationMustBeAllowed, decide, type CreateAgent, type CreationFacts } from './agent.decider.js';
import { fold } from './agent.evolve.js';
import {
  agentMustBeNew, agentMustExist, nameMustBeFree, phoneNumberMustBeFree, platformMustBeConfigured, quotaMustAllow, staleVersionRefusal,
  versionMustMatch,
} from './agent.rules.js';

const refusalOf = (fn: () => unknown): ServiceError | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentRuleViolation) return err.detail;
    throw err;
  }
  return undefined;
};

const agent = (over: Partial<AgentState> = {}): AgentState => ({
  id: 'agt_1',
  account_id: 'acc_1',
  name: 'Front desk',
  voice_platform: 'platform_a',
  phone_number: '+14155550100',
  voice_id: 'v',
  language: 'en',
  system_prompt: null,
  welcome_message: null,
  transfer_number: null,
  business_hours: null,
  recording_enabled: true,
  transcription_enabled: true,
  pii_redaction: { enabled: false, categories: [] },
  store_content: true,
  retention: { conversations_days: null, recordings_days: null },
  metadata: {},
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  version: 1,
  ...over,
});

describe('platformMustBeConfigured', () => {
  it('lets a configured platform through and names the field of an unconfigured one', () => {
    expect(refusalOf(() => platformMustBeConfigured('platform_a', ['platform_a']))).toBeUndefined();
    expect(refusalOf(() => platformMustBeConfigured('platform_b', ['platform_a']))).toEqual({
      code: 'platform_not_configured',
      field: 'voice_platform',
      message: 'The platform_b integration is not configured for this account.',
    });
    expect(refusalOf(() => platformMustBeConfigured('platform_a', []))).toMatchObject({ code: 'platform_not_configured' });
  });
});

describe('quotaMustAllow', () => {
  it('allows while the account is below its limit', () => {
    expect(refusalOf(() => quotaMustAllow(3, 0))).toBeUndefined();
    expect(refusalOf(() => quotaMustAllow(3, 2))).toBeUndefined();
  });

  it('refuses at and above the limit, with limit and current', () => {
    expect(refusalOf(() => quotaMustAllow(3, 3))).toEqual({
      code: 'quota_exceeded',
      message: 'The plan allows 3 agents and the account has 3.',
      limit: 3,
      current: 3,
    });
    expect(refusalOf(() => quotaMustAllow(2, 5))).toMatchObject({ code: 'quota_exceeded', limit: 2, current: 5 });
    expect(refusalOf(() => quotaMustAllow(0, 0))).toMatchObject({ code: 'quota_exceeded', limit: 0, current: 0 });
  });
});

describe('nameMustBeFree', () => {
  it('refuses a taken name with the name field', () => {
    expect(refusalOf(() => nameMustBeFree('Sales', false))).toBeUndefined();
    expect(refusalOf(() => nameMustBeFree('Sales', true))).toEqual({
      code: 'duplicate_name',
      field: 'name',
      message: 'An agent named "Sales" already exists in this account.',
    });
  });
});

describe('phoneNumberMustBeFree', () => {
  it('refuses a held number with the phone_number field', () => {
    expect(refusalOf(() => phoneNumberMustBeFree('+14155550123', false))).toBeUndefined();
    expect(refusalOf(() => phoneNumberMustBeFree('+14155550123', true))).toEqual({
      code: 'phone_number_in_use',
      field: 'phone_number',
      message: '+14155550123 is already used by another agent.',
    });
  });
});

describe('agentMustExist', () => {
  it('is not_found for no agent and for a deleted one, alike', () => {
    const notFound = { code: 'not_found', message: 'No agent with this id exists.' };
    expect(refusalOf(() => agentMustExist(undefined))).toEqual(notFound);
    expect(refusalOf(() => agentMustExist(agent({ status: 'deleted' })))).toEqual(notFound);
    expect(refusalOf(() => agentMustExist(agent({ status: 'paused' })))).toBeUndefined();
  });
});

describe('agentMustBeNew', () => {
  it('refuses a stream that already has a history', () => {
    expect(refusalOf(() => agentMustBeNew(undefined))).toBeUndefined();
    expect(refusalOf(() => agentMustBeNew(agent({ status: 'deleted' })))).toMatchObject({ code: 'concurrent_modification' });
  });
});

describe('versionMustMatch', () => {
  it('passes without an expected version or on the current one', () => {
    expect(refusalOf(() => versionMustMatch(agent({ version: 4 }), undefined))).toBeUndefined();
    expect(refusalOf(() => versionMustMatch(agent({ version: 4 }), 4))).toBeUndefined();
  });

  it('refuses any other version with the same refusal a lost race gets', () => {
    expect(refusalOf(() => versionMustMatch(agent({ version: 4 }), 3))).toEqual(staleVersionRefusal(3));
    expect(refusalOf(() => versionMustMatch(agent({ version: 4 }), 5))).toEqual({
      code: 'precondition_failed',
      message: 'The agent is no longer at version 5; fetch it again and retry.',
    });
  });
});

describe('creationMustBeAllowed', () => {
  const facts = (over: Partial<CreationFacts> = {}): CreationFacts => ({
    configured_platforms: ['platform_a'],
    agent_limit: 2,
    live_agents: 0,
    name_taken: false,
    ...over,
  });
  const input = { name: 'Front desk', voice_platform: 'platform_a' as const };

  it('lets a create through when every rule does', () => {
    expect(refusalOf(() => creationMustBeAllowed(input, facts()))).toBeUndefined();
  });

  it('answers platform first, then quota, then name', () => {
    const everythingWrong = facts({ configured_platforms: [], live_agents: 2, name_taken: true });
    expect(refusalOf(() => creationMustBeAllowed(input, everythingWrong))?.code).toBe('platform_not_configured');
    expect(refusalOf(() => creationMustBeAllowed(input, { ...everythingWrong, configured_platforms: ['platform_a'] }))?.code).toBe('quota_exceeded');
    expect(refusalOf(() => creationMustBeAllowed(input, facts({ name_taken: true })))?.code).toBe('duplicate_name');
  });
});

describe('the decider applies the rules to the facts it is given', () => {
  const create = (over: Partial<CreationFacts> = {}): CreateAgent => ({
    type: 'CreateAgent',
    agent_id: 'agt_1',
    account_id: 'acc_1',
    input: { name: 'Front desk', voice_platform: 'platform_a', phone_number: '+14155550100' },
    configured_platforms: ['platform_a'],
    agent_limit: 2,
    live_agents: 1,
    name_taken: false,
    now: '2026-01-01T00:00:00.000Z',
    ...over,
  });

  it('creates while the account has room and the name is free', () => {
    expect(decide(create(), undefined).map((e) => e.type)).toEqual(['AgentCreated']);
  });

  it('refuses a create at the quota or with a taken name', () => {
    expect(refusalOf(() => decide(create({ live_agents: 2 }), undefined))).toMatchObject({ code: 'quota_exceeded', limit: 2, current: 2 });
    expect(refusalOf(() => decide(create({ name_taken: true }), undefined))).toMatchObject({ code: 'duplicate_name', field: 'name' });
  });

  it('refuses an update or delete based on a stale version, after not_found', () => {
    const current = fold(decide(create(), undefined))!;
    const now = '2026-01-02T00:00:00.000Z';
    const update = { type: 'UpdateAgent' as const, changes: { name: 'x' }, configured_platforms: ['platform_a'], now };
    expect(refusalOf(() => decide({ ...update, expected_version: 2 }, current))).toMatchObject({ code: 'precondition_failed' });
    expect(refusalOf(() => decide({ type: 'DeleteAgent', expected_version: 2, now }, current))).toMatchObject({ code: 'precondition_failed' });
    expect(decide({ ...update, expected_version: 1 }, current).map((e) => e.type)).toEqual(['AgentUpdated']);
    const gone = fold(decide({ type: 'DeleteAgent', now }, current), current)!;
    expect(refusalOf(() => decide({ ...update, expected_version: 7 }, gone))).toMatchObject({ code: 'not_found' });
  });
});
