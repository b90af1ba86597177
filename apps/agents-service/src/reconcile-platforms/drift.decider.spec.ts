import { describe, expect, it } from '@jest/globals';
import { planPlatformSync, type DesiredPlatformAgent, type NumberFacts, type PlatformFacts } from '../platform-sync/platform-sync.decider.js';
import { platformAStoredFields } from '@voice/voice-platforms';
import { platformBName, platformBStoredFields } from '@voice/voice-platforms';
import type { ListedPlatformAgent, ListedPlatformNumber, PlatformAgentSpec } from '@voice/voice-platforms';
import { findDrift, type PlatformListing, type RecordedAgent } from './drift.decider.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_1', name: 'Front desk', system_prompt: 'Be kind.', welcome_message: 'Hello', voice_id: 'pa-voice-warm',
  language: 'en-US', transfer_number: null, webhook_url: 'https://hooks.example/a',
};
const bought: NumberFacts = { phone_number: '+14155550100', platform_number_id: '+14155550100', purchased: true, bound_to: 'pa-1' };
const facts = (over: Partial<PlatformFacts> = {}): PlatformFacts => ({ platform_agent_id: 'pa-1', spec, number: bought, ...over });
const recorded = (over: Partial<RecordedAgent> = {}): RecordedAgent => {
  const f = over.facts ?? facts();
  return { agent_id: 'agt_1', status: 'active', sync_version: 7, facts: f, stored: f.spec && platformAStoredFields(f.spec), ...over };
};
const listedAgent = (over: Partial<ListedPlatformAgent['fields']> = {}, id = 'pa-1'): ListedPlatformAgent => ({
  platform_agent_id: id, external_id: 'agt_1', fields: { ...platformAStoredFields(spec), ...over },
});
const listedNumber = (over: Partial<ListedPlatformNumber> = {}): ListedPlatformNumber => ({
  phone_number: bought.phone_number, platform_number_id: bought.platform_number_id, bound_to: 'pa-1', ...over,
});
const listing = (over: Partial<PlatformListing> = {}): PlatformListing => ({ agents: [listedAgent()], numbers: [listedNumber()], ...over });
const desired = (over: Partial<DesiredPlatformAgent> = {}): DesiredPlatformAgent => ({
  status: 'active', voice_platform: 'platform_a', spec, phone_number: bought.phone_number, area_code: null, ...over,
});

describe('findDrift: our synced agents against the platform listing → repairs', () => {
  it('finds nothing when the platform holds every agent as recorded (active bound, paused unbound), whatever else it holds', () => {
    const paused = recorded({ agent_id: 'agt_2', status: 'paused', facts: facts({ platform_agent_id: 'pa-2', number: { ...bought, phone_number: '+1', platform_number_id: '+1', bound_to: null } }) });
    const stranger = { platform_agent_id: 'pa-x', external_id: null, fields: listedAgent().fields };
    const world = listing({
      agents: [listedAgent(), listedAgent({}, 'pa-2'), stranger],
      numbers: [listedNumber(), listedNumber({ phone_number: '+1', platform_number_id: '+1', bound_to: null }), listedNumber({ platform_number_id: '+2', bound_to: 'pa-x' })],
    });
    expect(findDrift([recorded(), paused], world)).toEqual([]);
  });

  it('agent deleted on the platform (its number left unbound, as the platform does): forgotten, so the plan recreates it and binds the number', () => {
    const [repair] = findDrift([recorded()], listing({ agents: [], numbers: [listedNumber({ bound_to: null })] }));
    expect(repair).toEqual({
      agent_id: 'agt_1', sync_version: 7, replace_number: false, recorded_platform_agent_id: 'pa-1',
      drift: { agent_missing: true, number: null, changed_fields: [] },
      facts: { platform_agent_id: null, spec: null, number: { ...bought, bound_to: null } },
    });
    expect(planPlatformSync(desired(), { platform_a: repair.facts }).map((s) => s.type)).toEqual(['find_or_create_agent', 'bind_number']);
  });

  it('agent deleted and its bought number released: recreated and a new number bought (replace_number)', () => {
    const [repair] = findDrift([recorded()], listing({ agents: [], numbers: [] }));
    expect(repair.drift).toEqual({ agent_missing: true, number: 'missing', changed_fields: [] });
    expect(repair.replace_number).toBe(true);
    expect(repair.facts).toEqual({ platform_agent_id: null, spec: null, number: null });
    expect(planPlatformSync(desired({ phone_number: null }), { platform_a: repair.facts })).toEqual([
      { type: 'find_or_create_agent', platform: 'platform_a', spec },
      { type: 'acquire_number', platform: 'platform_a', phone_number: null, area_code: null, bind: true },
    ]);
  });

  it('an imported (customer) number gone: imported again, never replaced', () => {
    const imported = { ...bought, purchased: false };
    const [repair] = findDrift([recorded({ facts: facts({ number: imported }) })], listing({ numbers: [] }));
    expect(repair).toMatchObject({ drift: { agent_missing: false, number: 'missing' }, replace_number: false });
    expect(planPlatformSync(desired(), { platform_a: repair.facts })).toEqual([
      { type: 'acquire_number', platform: 'platform_a', phone_number: bought.phone_number, area_code: null, bind: true },
    ]);
  });

  it('number unbound or bound to another agent: bound again; bound while paused: unbound', () => {
    expect(findDrift([recorded()], listing({ numbers: [listedNumber({ bound_to: null })] }))[0].drift.number).toBe('unbound');
    const [elsewhere] = findDrift([recorded()], listing({ numbers: [listedNumber({ bound_to: 'pa-9' })] }));
    expect(elsewhere.drift.number).toBe('bound_elsewhere');
    expect(planPlatformSync(desired(), { platform_a: elsewhere.facts }).map((s) => s.type)).toEqual(['bind_number']);
    const paused = recorded({ status: 'paused', facts: facts({ number: { ...bought, bound_to: null } }) });
    const [answering] = findDrift([paused], listing());
    expect(answering.drift.number).toBe('bound_while_paused');
    expect(planPlatformSync(desired({ status: 'paused' }), { platform_a: answering.facts }).map((s) => s.type)).toEqual(['unbind_number']);
  });

  it('fields edited in the dashboard: named, and the plan sends exactly those back', () => {
    const [repair] = findDrift([recorded()], listing({ agents: [listedAgent({ system_prompt: 'Be rude.', voice_id: 'pa-voice-deep' })] }));
    expect(repair.drift).toEqual({ agent_missing: false, number: null, changed_fields: ['system_prompt', 'voice_id'] });
    expect(planPlatformSync(desired(), { platform_a: repair.facts })).toEqual([
      { type: 'update_agent', platform: 'platform_a', changes: { system_prompt: spec.system_prompt, voice_id: spec.voice_id }, spec },
    ]);
  });

  it('compares in the form the platform stores (platform_b: a long name shortened, the language as ISO 639-1): no false drift', () => {
    const long = { ...spec, name: 'A name far longer than the forty characters platform_b holds', voice_id: 'pb-voice-warm' };
    const stored = platformBStoredFields(long);
    expect(stored).toMatchObject({ name: platformBName(long.name, long.external_id), language: 'en' });
    const agent = recorded({ facts: facts({ spec: long }), stored });
    expect(findDrift([agent], listing({ agents: [{ platform_agent_id: 'pa-1', external_id: 'agt_1', fields: stored }] }))).toEqual([]);
    const renamed = findDrift([agent], listing({ agents: [{ platform_agent_id: 'pa-1', external_id: 'agt_1', fields: { ...stored, name: 'Renamed' } }] }));
    expect(renamed[0].drift.changed_fields).toEqual(['name']);
    expect(planPlatformSync(desired({ spec: long }), { platform_a: renamed[0].facts })).toEqual([
      { type: 'update_agent', platform: 'platform_a', changes: { name: long.name }, spec: long },
    ]);
  });

  it('a held value that reads like ours in another form: every field is sent rather than none', () => {
    const agent = recorded({ stored: { ...platformAStoredFields(spec), language: 'en' } });
    const [repair] = findDrift([agent], listing({ agents: [listedAgent({ language: 'en-US' })] }));
    expect(repair.drift.changed_fields).toEqual(['language']);
    expect(repair.facts.spec).toBeNull();
    expect(planPlatformSync(desired(), { platform_a: repair.facts })[0]).toMatchObject({ type: 'update_agent' });
  });
});
