import { describe, expect, it } from '@jest/globals';
import type { AgentState } from '../agent/agent.js';
import type { PlatformSyncStep, SyncFacts } from './platform-sync.decider.js';
import { foldPlatformSync, PlatformSyncEventTypes, type PlatformSyncEvent } from './platform-sync.events.js';
import { acquiredNumber, driftFoundEvent, numberToAssign, progressedEvent, repairIsStale, settle, type DriftRepairRequest } from './sync-run.decider.js';

const agent: AgentState = {
  id: 'agt_1', account_id: 'acc_1', name: 'Desk', voice_platform: 'platform_a', phone_number: '+14155550100', voice_id: 'pa-voice-default',
  language: 'en', system_prompt: null, welcome_message: null, transfer_number: null, business_hours: null, recording_enabled: true,
  transcription_enabled: true, pii_redaction: { enabled: false, categories: [] }, store_content: true,
  retention: { conversations_days: null, recordings_days: null }, status: 'active', metadata: {}, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', version: 3,
};
const number = { phone_number: '+14155550100', platform_number_id: 'pn-1', purchased: true, bound_to: 'pa-1' };
const facts: SyncFacts = { platform_a: { platform_agent_id: 'pa-1', spec: null, number } };
const acquire: PlatformSyncStep = { type: 'acquire_number', platform: 'platform_a', phone_number: null, area_code: null, bind: true };
const update: PlatformSyncStep = { type: 'update_agent', platform: 'platform_a', changes: {}, spec: {} as never };
const drift = { agent_missing: false, number: null, changed_fields: ['name'] };
const repair: DriftRepairRequest = {
  agent_id: 'agt_1', platform: 'platform_a', sync_version: 4, drift, recorded_platform_agent_id: 'pa-1', facts: facts.platform_a!, replace_number: false,
};
const failedAt = (version: number, code: string, permanent: boolean): PlatformSyncEvent => ({
  type: PlatformSyncEventTypes.failed, data: { platform: 'platform_a', error: { code, message: 'no' }, permanent, attempted_version: version, at: 't0' },
});

describe('repairIsStale', () => {
  it('a repair is due only for a live agent still on that platform, without sync work, at the sync version the drift was found against', () => {
    expect(repairIsStale(repair, agent, false)).toBe(false);
    expect(repairIsStale(repair, agent, false, 4)).toBe(false);
    expect(repairIsStale(repair, agent, true)).toBe(true);
    expect(repairIsStale(repair, { ...agent, status: 'deleted' }, false)).toBe(true);
    expect(repairIsStale(repair, { ...agent, voice_platform: 'platform_b' }, false)).toBe(true);
    expect(repairIsStale(repair, agent, false, 5)).toBe(true);
  });
});

describe('events of a run', () => {
  it('a step records the platform’s facts after it, at the agent’s version', () => {
    expect(progressedEvent(facts, update, agent, 't1')).toEqual({
      type: PlatformSyncEventTypes.progressed, data: { platform: 'platform_a', platform_agent_id: 'pa-1', spec: null, number, attempted_version: 3, at: 't1' },
    });
  });

  it('a drift records the facts as the platform holds them, with the agent’s number and version', () => {
    expect(driftFoundEvent(agent, repair, 't1')).toEqual({
      type: PlatformSyncEventTypes.driftFound,
      data: {
        platform: 'platform_a', platform_agent_id: 'pa-1', spec: null, number, drift, recorded_platform_agent_id: 'pa-1', phone_number: '+14155550100',
        replace_number: false, attempted_version: 3, at: 't1',
      },
    });
  });
});

describe('numbers a run acquires', () => {
  it('only an acquire step acquires, the number its facts record', () => {
    expect(acquiredNumber(facts, acquire)).toBe('+14155550100');
    expect(acquiredNumber(facts, update)).toBeUndefined();
    expect(acquiredNumber({}, acquire)).toBeUndefined();
  });

  it('becomes the agent’s when it had none, or in place of the lost bought number; otherwise the agent keeps its own', () => {
    expect(numberToAssign('+14155550199', { ...agent, phone_number: null }, undefined)).toEqual({ phone_number: '+14155550199' });
    expect(numberToAssign('+14155550199', agent, '+14155550100')).toEqual({ phone_number: '+14155550199', replacing: '+14155550100' });
    expect(numberToAssign('+14155550100', agent, undefined)).toBeUndefined();
  });
});

describe('settle', () => {
  it('synced: the facts at the agent’s version, after the repair of an open drift', () => {
    expect(settle(agent, { kind: 'synced', facts }, foldPlatformSync([]), 't2')).toEqual({
      kind: 'synced', events: [{ type: PlatformSyncEventTypes.synced, data: { platform: 'platform_a', platform_agent_id: 'pa-1', spec: null, number, synced_version: 3, at: 't2' } }],
    });
    const drifted = foldPlatformSync([driftFoundEvent(agent, repair, 't1')]);
    const { events } = settle({ ...agent, phone_number: '+14155550199' }, { kind: 'synced', facts }, drifted, 't2');
    expect(events.map((e) => e.type)).toEqual([PlatformSyncEventTypes.driftRepaired, PlatformSyncEventTypes.synced]);
    expect(events[0].data).toMatchObject({ found_at: 't1', platform_agent_id_before: 'pa-1', phone_number_before: '+14155550100', phone_number_after: '+14155550199', synced_version: 3 });
  });

  it('a transient failure retries after the executor’s delay; the same failure again at the same version adds no event', () => {
    const error = { code: 'platform_unavailable', message: 'busy' };
    const outcome = { kind: 'retry' as const, step: update, error, retryAfterMs: 1500 };
    expect(settle(agent, outcome, foldPlatformSync([]), 't2')).toEqual({
      kind: 'retry', error, retryAfterMs: 1500,
      events: [{ type: PlatformSyncEventTypes.failed, data: { platform: 'platform_a', error, permanent: false, attempted_version: 3, at: 't2' } }],
    });
    expect(settle(agent, outcome, foldPlatformSync([failedAt(3, 'platform_unavailable', false)]), 't2').events).toEqual([]);
    expect(settle(agent, outcome, foldPlatformSync([failedAt(2, 'platform_unavailable', false)]), 't2').events).toHaveLength(1);
    expect(settle(agent, outcome, foldPlatformSync([failedAt(3, 'platform_unavailable', true)]), 't2').events).toHaveLength(1);
  });

  it('a permanent failure ends the work with the step and error; a refused key names its platform', () => {
    const rejected = settle(agent, { kind: 'failed', step: update, error: { code: 'platform_rejected', message: 'no', field: 'voice_id' } }, foldPlatformSync([]), 't2');
    expect(rejected).toMatchObject({ kind: 'failed', step: update, error: { code: 'platform_rejected' }, events: [{ data: { permanent: true } }] });
    expect(rejected).not.toHaveProperty('refusedCredentials');
    const refused = settle(agent, { kind: 'failed', step: update, error: { code: 'invalid_platform_credentials', message: 'no' } }, foldPlatformSync([]), 't2');
    expect(refused).toMatchObject({ kind: 'failed', refusedCredentials: 'platform_a' });
  });
});
