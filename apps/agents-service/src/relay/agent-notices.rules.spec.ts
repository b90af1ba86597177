import { describe, expect, it } from '@jest/globals';
import type { AgentSnapshot } from '@voice/contracts';
import { credentialsRefusedReason } from '../integrations/integration.rules.js';
import { foldPlatformSync, PlatformSyncEventTypes } from '../platform-sync/platform-sync.events.js';
import type { PlatformSyncStep } from '../platform-sync/platform-sync.decider.js';
import { settle } from '../platform-sync/sync-run.decider.js';
import type { AgentState } from '../agent/agent.js';
import { announcedSyncVersion, credentialsRefusedNotice, syncFailedNotice } from './agent-notices.rules.js';

const snapshot: AgentSnapshot = {
  agent_id: 'agt_1', account_id: 'acc_1', name: 'Desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true,
};
const failed = {
  event_id: 'e-1',
  type: PlatformSyncEventTypes.failed,
  data: {
    platform: 'platform_a', error: { code: 'platform_rejected', message: 'platform_a rejected the agent (400)', field: 'voice_id' }, permanent: true,
    attempted_version: 3, at: '2026-01-01T00:00:05.000Z', attempt: 2,
  },
};

describe('what the relay announces of the sync stream', () => {
  it('a failed sync: the agent as the failed version shows it, the failure, keyed by the recorded event', () => {
    expect(announcedSyncVersion(failed)).toBe(3);
    expect(syncFailedNotice(failed, snapshot)).toEqual({
      id: 'e-1', type: 'AgentSyncFailed', version: 3, occurred_at: '2026-01-01T00:00:05.000Z', agent: snapshot,
      failure: { code: 'platform_rejected', message: 'platform_a rejected the agent (400)', field: 'voice_id', permanent: true, platform: 'platform_a', attempt: 2 },
    });
  });

  it('a failure recorded before tries were counted has no attempt; one without a field has no field', () => {
    const older = { ...failed, data: { ...failed.data, error: { code: 'platform_unavailable', message: 'timeout' }, attempt: undefined } };
    expect(syncFailedNotice(older, snapshot)!.failure).toEqual({ code: 'platform_unavailable', message: 'timeout', permanent: true, platform: 'platform_a' });
  });

  it.each([PlatformSyncEventTypes.progressed, PlatformSyncEventTypes.synced, PlatformSyncEventTypes.driftFound, PlatformSyncEventTypes.driftRepaired])(
    '%s is not announced',
    (type) => {
      expect(announcedSyncVersion({ ...failed, type })).toBeUndefined();
      expect(syncFailedNotice({ ...failed, type }, snapshot)).toBeUndefined();
    },
  );

  it('a refused key: the account, the integration and the platform, when and why; never the key', () => {
    const data = { account_id: 'acc_1', integration_id: 'int_1', platform: 'platform_b', reason: credentialsRefusedReason('platform_b', 'reconciliation'), at: 't1' };
    const notice = credentialsRefusedNotice({ event_id: 'e-2', type: 'IntegrationCredentialsRefused', data });
    expect(notice).toEqual({
      id: 'e-2', type: 'IntegrationCredentialsRefused', occurred_at: 't1', account_id: 'acc_1', integration_id: 'int_1', platform: 'platform_b',
      reason: 'platform_b refused the stored API key while its agents were being listed for reconciliation.',
    });
    expect(credentialsRefusedNotice({ event_id: 'e-3', type: 'AgentCreated', data })).toBeUndefined();
  });
});

describe('the failure a run records counts its try', () => {
  const agent = { id: 'agt_1', account_id: 'acc_1', voice_platform: 'platform_a', version: 3 } as AgentState;
  const step: PlatformSyncStep = { type: 'update_agent', platform: 'platform_a', changes: {}, spec: {} as never };
  const outcome = { kind: 'retry' as const, step, error: { code: 'platform_unavailable', message: '503' }, retryAfterMs: 1_000 };

  it('the first try at a version is attempt 1, the third attempt 3; without a count, none', () => {
    const data = (failedBefore?: number) => (settle(agent, outcome, foldPlatformSync([]), 't', failedBefore).events[0]!.data as { attempt?: number });
    expect(data(0).attempt).toBe(1);
    expect(data(2).attempt).toBe(3);
    expect(data(undefined)).not.toHaveProperty('attempt');
  });
});
