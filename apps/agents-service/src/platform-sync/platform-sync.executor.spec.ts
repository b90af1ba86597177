import { describe, expect, it } from '@jest/globals';
import { platformAStoredFields } from '@voice/voice-platforms';
import { PlatformCallFailed, type PlatformFailure } from '@voice/voice-platforms';
import type { PlatformAgentSpec, VoicePlatformAdapter } from '@voice/voice-platforms';
import type { DesiredPlatformAgent, SyncFacts } from './platform-sync.decider.js';
import { syncAgentToPlatforms, type PlatformSyncRunOptions } from './platform-sync.executor.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_1', name: 'A', system_prompt: null, welcome_message: null, voice_id: 'v', language: 'en', transfer_number: null, webhook_url: 'https://h',
};
const desired: DesiredPlatformAgent = { status: 'active', voice_platform: 'platform_a', spec, phone_number: '+14155550100', area_code: null };

/** An adapter that succeeds, except for the operations given a failure. */
function fakeAdapter(failures: Partial<Record<keyof VoicePlatformAdapter, PlatformFailure>> = {}, calls: string[] = []): VoicePlatformAdapter {
  const call = async <T>(name: keyof VoicePlatformAdapter, value: T): Promise<T> => {
    calls.push(name);
    const failure = failures[name];
    if (failure) throw new PlatformCallFailed('platform_a', failure);
    return value;
  };
  return {
    platform: 'platform_a',
    verifyCredentials: () => call('verifyCredentials', undefined),
    findAgentByExternalId: () => call('findAgentByExternalId', undefined),
    createAgent: () => call('createAgent', { platform_agent_id: 'pa-new' }),
    updateAgent: () => call('updateAgent', undefined),
    deleteAgent: () => call('deleteAgent', undefined),
    acquireNumber: (_c, request) => call('acquireNumber', { phone_number: request.phone_number ?? '+14155550177', platform_number_id: 'n', purchased: !request.phone_number }),
    bindNumber: () => call('bindNumber', undefined),
    releaseNumber: () => call('releaseNumber', undefined),
    listAgents: () => call('listAgents', []),
    listNumbers: () => call('listNumbers', []),
    storedFields: (spec) => platformAStoredFields(spec),
  };
}

const options = (adapter: VoicePlatformAdapter, overrides: Partial<PlatformSyncRunOptions> = {}): PlatformSyncRunOptions => ({
  adapters: { for: () => adapter },
  connectionFor: () => ({ baseUrl: 'https://platform.example', apiKey: 'k' }),
  random: () => 0,
  ...overrides,
});

describe('syncAgentToPlatforms: failures', () => {
  it.each<[PlatformFailure, object]>([
    [{ kind: 'number_in_use', message: 'taken', field: 'phone_number' }, { code: 'phone_number_in_use', field: 'phone_number' }],
    [{ kind: 'number_unavailable', message: 'none left' }, { code: 'phone_number_unavailable' }],
    [{ kind: 'rejected', message: 'bad area', field: 'area_code' }, { code: 'platform_rejected', field: 'area_code' }],
    [{ kind: 'base_url_refused', message: 'internal', field: 'base_url' }, { code: 'platform_base_url_refused' }],
    [{ kind: 'invalid_credentials', message: '401' }, { code: 'invalid_platform_credentials' }],
  ])('%o on acquiring the number → permanent %o, the agent created before it kept in the facts', async (failure, error) => {
    const outcome = await syncAgentToPlatforms(desired, {}, options(fakeAdapter({ acquireNumber: failure })));
    expect(outcome).toMatchObject({ kind: 'failed', error, step: { type: 'acquire_number' } });
    expect(outcome.facts.platform_a?.platform_agent_id).toBe('pa-new');
  });

  it('a transient failure without Retry-After → retry after the backoff', async () => {
    const outcome = await syncAgentToPlatforms(desired, {}, options(fakeAdapter({ createAgent: { kind: 'transient', message: '503' } }), { random: () => 0.5, attempt: 3 }));
    expect(outcome).toMatchObject({ kind: 'retry', error: { code: 'platform_unavailable' }, retryAfterMs: 2000 });
  });

  it('an agent gone from the platform (404 on update) is forgotten and created again', async () => {
    const facts: SyncFacts = { platform_a: { platform_agent_id: 'pa-old', spec: { ...spec, name: 'old' }, number: null } };
    const calls: string[] = [];
    const adapter = fakeAdapter({}, calls);
    let updates = 0;
    adapter.updateAgent = async () => {
      calls.push('updateAgent');
      updates += 1;
      if (updates === 1) throw new PlatformCallFailed('platform_a', { kind: 'not_found', message: 'gone' });
    };
    const outcome = await syncAgentToPlatforms(desired, facts, options(adapter));
    expect(outcome).toMatchObject({ kind: 'synced', facts: { platform_a: { platform_agent_id: 'pa-new', spec } } });
    expect(calls).toEqual(['updateAgent', 'findAgentByExternalId', 'createAgent', 'acquireNumber']);
  });

  it('errors that are not platform failures propagate', async () => {
    const adapter = fakeAdapter();
    adapter.findAgentByExternalId = async () => {
      throw new TypeError('bug');
    };
    await expect(syncAgentToPlatforms(desired, {}, options(adapter))).rejects.toThrow('bug');
  });
});

describe('syncAgentToPlatforms: numbers an account parked', () => {
  it('adopts a parked number (bound, not imported again) when the agent imports the same E.164', async () => {
    const calls: string[] = [];
    const adopted: string[] = [];
    const parked = { phone_number: '+14155550100', platform_number_id: '+14155550100', purchased: false };
    const outcome = await syncAgentToPlatforms(
      desired,
      {},
      options(fakeAdapter({}, calls), {
        adoptParkedNumber: async (platform, phoneNumber) => {
          adopted.push(`${platform} ${phoneNumber}`);
          return parked;
        },
      }),
    );
    expect(outcome).toMatchObject({ kind: 'synced', facts: { platform_a: { number: { ...parked, bound_to: 'pa-new' } } } });
    expect(adopted).toEqual(['platform_a +14155550100']);
    expect(calls).not.toContain('acquireNumber');
    expect(calls).toContain('bindNumber');
  });

  it('parks an imported number it lets go, and never a released (bought) one', async () => {
    const parkedNumbers: string[] = [];
    const park = { parkNumber: async (_platform: string, n: { phone_number: string }) => void parkedNumbers.push(n.phone_number) };
    const imported: SyncFacts = { platform_a: { platform_agent_id: 'pa-1', spec, number: { phone_number: '+14155550100', platform_number_id: 'i', purchased: false, bound_to: 'pa-1' } } };
    const bought: SyncFacts = { platform_a: { platform_agent_id: 'pa-1', spec, number: { phone_number: '+14155550177', platform_number_id: 'b', purchased: true, bound_to: 'pa-1' } } };
    const deleted = { ...desired, status: 'deleted' as const };
    expect(await syncAgentToPlatforms(deleted, imported, options(fakeAdapter(), park))).toMatchObject({ kind: 'synced', facts: {} });
    expect(await syncAgentToPlatforms(deleted, bought, options(fakeAdapter(), park))).toMatchObject({ kind: 'synced', facts: {} });
    expect(parkedNumbers).toEqual(['+14155550100']);
  });
});
