import { describe, expect, it } from '@jest/globals';
import { platformSyncViewOf, type PlatformSyncSummary } from './platform-sync.view.js';

const agent = { voice_platform: 'platform_a' as const, version: 3 };
const summary = (over: Partial<PlatformSyncSummary> = {}): PlatformSyncSummary => ({
  platform_agent_ids: { platform_a: 'agent_aaa', platform_b: 'pb-1' },
  synced_version: 3,
  last_attempt_at: '2026-01-01T00:00:00.000Z',
  last_failure: null,
  ...over,
});
const refused = { error: { code: 'platform_rejected', message: 'voice_id unknown', field: 'voice_id' }, permanent: true, attempted_version: 3 };

describe('the agent resource’s platform_sync', () => {
  it('is pending with nothing known before the first attempt', () => {
    expect(platformSyncViewOf(null, agent)).toEqual({
      state: 'pending', platform_agent_id: null, synced_version: null, last_attempt_at: null, last_error: null, last_reconciled_at: null, last_drift: null,
    });
  });

  it('is synced once the platform reflects the current version (or a later one), with the current platform’s id', () => {
    expect(platformSyncViewOf(summary(), agent)).toMatchObject({ state: 'synced', platform_agent_id: 'agent_aaa', synced_version: 3, last_error: null });
    expect(platformSyncViewOf(summary(), { voice_platform: 'platform_b', version: 2 })).toMatchObject({ state: 'synced', platform_agent_id: 'pb-1' });
  });

  it('is pending again when the agent changed after the last sync, showing the last transient error', () => {
    const transient = { error: { code: 'platform_unavailable', message: '503' }, permanent: false, attempted_version: 4 };
    expect(platformSyncViewOf(summary({ last_failure: transient }), { ...agent, version: 4 })).toMatchObject({
      state: 'pending',
      synced_version: 3,
      last_error: transient.error,
    });
  });

  it('is failed only when the current version was refused for good', () => {
    expect(platformSyncViewOf(summary({ synced_version: 2, last_failure: refused }), agent)).toMatchObject({ state: 'failed', last_error: refused.error });
    // A newer version than the refused one has not been refused yet.
    expect(platformSyncViewOf(summary({ synced_version: 2, last_failure: refused }), { ...agent, version: 4 }).state).toBe('pending');
  });
});
