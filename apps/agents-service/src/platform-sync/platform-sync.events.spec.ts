import { describe, expect, it } from '@jest/globals';
import type { PlatformAgentSpec } from '@voice/voice-platforms';
import {
  driftRepairedNotice, foldPlatformSync, lostNumberToReplace, platformFactsData, platformSyncView, PlatformSyncEventTypes, type AgentSyncFailed, type PlatformSyncEvent,
} from './platform-sync.events.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_1', name: 'A', system_prompt: null, welcome_message: null, voice_id: 'v', language: 'en', transfer_number: null, webhook_url: 'https://h',
};
const number = { phone_number: '+14155550100', platform_number_id: '+14155550100', purchased: true, bound_to: 'pa-1' };
const agent = { voice_platform: 'platform_a' as const, version: 3 };

const progressed = (version: number, at: string): PlatformSyncEvent => ({
  type: PlatformSyncEventTypes.progressed,
  data: { platform: 'platform_a', platform_agent_id: 'pa-1', spec, number: null, attempted_version: version, at },
});
const synced = (version: number, at: string): PlatformSyncEvent => ({
  type: PlatformSyncEventTypes.synced,
  data: { platform: 'platform_a', platform_agent_id: 'pa-1', spec, number, synced_version: version, at },
});
const failed = (version: number, at: string, permanent: boolean): PlatformSyncEvent => ({
  type: PlatformSyncEventTypes.failed,
  data: { platform: 'platform_a', error: { code: permanent ? 'platform_rejected' : 'platform_unavailable', message: 'no', ...(permanent && { field: 'voice_id' }) }, permanent, attempted_version: version, at },
});

describe('platform sync events', () => {
  it('fold: progress and sync record the platform facts; a sync clears earlier failures', () => {
    const record = foldPlatformSync([progressed(1, 't1'), failed(1, 't2', false), synced(1, 't3')]);
    expect(record).toEqual({ facts: { platform_a: { platform_agent_id: 'pa-1', spec, number } }, synced_version: 1, synced_at: 't3', failures: [], last_reconciled_at: null, last_drift: null, open_drift: null });
    expect(platformFactsData(record.facts, 'platform_a')).toEqual({ platform: 'platform_a', platform_agent_id: 'pa-1', spec, number });
  });

  it('fold: a platform whose facts are all gone is forgotten', () => {
    const gone: PlatformSyncEvent = {
      type: PlatformSyncEventTypes.synced, data: { platform: 'platform_a', platform_agent_id: null, spec: null, number: null, synced_version: 2, at: 't' },
    };
    expect(foldPlatformSync([synced(1, 't1'), gone]).facts).toEqual({});
  });
});

describe('platformSyncView', () => {
  it('pending before any attempt', () => {
    expect(platformSyncView(foldPlatformSync([]), agent)).toEqual({
      state: 'pending', platform_agent_id: null, synced_version: null, last_attempt_at: null, last_error: null, last_reconciled_at: null, last_drift: null,
    });
  });

  it('synced when the current version was synced', () => {
    expect(platformSyncView(foldPlatformSync([synced(3, '2026-01-01T00:00:03Z')]), agent)).toEqual({
      state: 'synced', platform_agent_id: 'pa-1', synced_version: 3, last_attempt_at: '2026-01-01T00:00:03Z', last_error: null,
      last_reconciled_at: null, last_drift: null,
    });
  });

  it('pending when an older version was synced, or after a transient failure (with the error shown)', () => {
    expect(platformSyncView(foldPlatformSync([synced(2, 't1')]), agent).state).toBe('pending');
    const view = platformSyncView(foldPlatformSync([synced(2, '2026-01-01T00:00:01Z'), failed(3, '2026-01-01T00:00:02Z', false)]), agent);
    expect(view).toMatchObject({ state: 'pending', synced_version: 2, last_attempt_at: '2026-01-01T00:00:02Z', last_error: { code: 'platform_unavailable' } });
  });

  it('failed when the current version failed permanently; a later version is pending again', () => {
    const record = foldPlatformSync([failed(3, '2026-01-01T00:00:02Z', true)]);
    expect(platformSyncView(record, agent)).toMatchObject({ state: 'failed', last_error: { code: 'platform_rejected', field: 'voice_id' } });
    expect(platformSyncView(record, { ...agent, version: 4 }).state).toBe('pending');
  });

  it('the platform agent id is that of the agent\'s current platform', () => {
    const record = foldPlatformSync([synced(3, 't')]);
    expect(platformSyncView(record, { ...agent, voice_platform: 'platform_b' }).platform_agent_id).toBeNull();
    const failure: AgentSyncFailed['data'] | undefined = record.failures[0];
    expect(failure).toBeUndefined();
  });
});

describe('drift events', () => {
  const drift = { agent_missing: true, number: null, changed_fields: [] };
  const found: PlatformSyncEvent = {
    type: PlatformSyncEventTypes.driftFound,
    data: {
      platform: 'platform_a', platform_agent_id: null, spec: null, number: { ...number, bound_to: null }, drift, recorded_platform_agent_id: 'pa-1',
      phone_number: number.phone_number, replace_number: false, attempted_version: 3, at: 't4',
    },
  };
  const repaired: PlatformSyncEvent = {
    type: PlatformSyncEventTypes.driftRepaired,
    data: {
      platform: 'platform_a', drift, found_at: 't4', platform_agent_id_before: 'pa-1', platform_agent_id: 'pa-2',
      phone_number_before: number.phone_number, phone_number_after: number.phone_number, synced_version: 3, at: 't5',
    },
  };

  it('a drift found records what the platform holds and un-syncs the agent until the repair; the repair and the sync after it settle it', () => {
    const afterFound = foldPlatformSync([synced(3, 't3'), found]);
    expect(afterFound.facts.platform_a).toEqual({ platform_agent_id: null, spec: null, number: { ...number, bound_to: null } });
    expect(platformSyncView(afterFound, agent)).toMatchObject({
      state: 'pending', platform_agent_id: null, last_reconciled_at: 't4',
      last_drift: { found_at: 't4', repaired_at: null, platform: 'platform_a', agent_missing: true, number: null, changed_fields: [], phone_number_before: number.phone_number, phone_number_after: null },
    });
    expect(afterFound.open_drift).toEqual({
      platform: 'platform_a', drift, found_at: 't4', platform_agent_id_before: 'pa-1', phone_number_before: number.phone_number, replace_number: false,
    });
    const settled = foldPlatformSync([synced(3, 't3'), found, repaired, synced(3, 't5')]);
    expect(settled.open_drift).toBeNull();
    expect(platformSyncView(settled, agent)).toMatchObject({
      state: 'synced', platform_agent_id: 'pa-1', last_reconciled_at: 't5', last_drift: { found_at: 't4', repaired_at: 't5', phone_number_after: number.phone_number },
    });
  });

  it('a lost bought number is to be replaced while the drift is open and the number is still the agent’s; an imported one never', () => {
    const lostBought: PlatformSyncEvent = { ...found, data: { ...found.data, replace_number: true } } as PlatformSyncEvent;
    expect(lostNumberToReplace(foldPlatformSync([synced(3, 't3'), lostBought]), number.phone_number)).toBe(number.phone_number);
    expect(lostNumberToReplace(foldPlatformSync([synced(3, 't3'), lostBought]), '+14155550999')).toBeUndefined();
    expect(lostNumberToReplace(foldPlatformSync([synced(3, 't3'), lostBought, repaired]), number.phone_number)).toBeUndefined();
    expect(lostNumberToReplace(foldPlatformSync([synced(3, 't3'), found]), number.phone_number)).toBeUndefined();
  });

  it('an outbound "agent drift repaired" event can be made from the recorded repair alone', () => {
    expect(driftRepairedNotice('agt_1', repaired)).toEqual({ agent_id: 'agt_1', ...repaired.data });
    expect(driftRepairedNotice('agt_1', found)).toBeUndefined();
  });
});
