import { describe, expect, it } from '@jest/globals';
import type { AgentState } from '../agent/agent.js';
import type { PlatformSyncSummary } from './platform-sync.view.js';
import { creationRefusal, settledRecord } from './inline-sync.js';

describe('a refused create’s answer', () => {
  it('keeps the API codes and the field the platform objected to', () => {
    expect(creationRefusal({ code: 'platform_rejected', message: "voice_id 'x' does not exist", field: 'voice_id' })).toEqual({
      code: 'platform_rejected',
      message: "voice_id 'x' does not exist",
      field: 'voice_id',
    });
    for (const code of ['phone_number_in_use', 'phone_number_unavailable', 'invalid_platform_credentials', 'platform_not_configured']) {
      expect(creationRefusal({ code, message: 'm' })).toEqual({ code, message: 'm' });
    }
  });

  it('answers an unusable base URL as the integration’s PUT does, and an unknown code as a platform refusal', () => {
    expect(creationRefusal({ code: 'platform_base_url_refused', message: 'internal address', field: 'base_url' })).toEqual({
      code: 'invalid_platform_credentials',
      field: 'base_url',
      message: 'internal address',
    });
    expect(creationRefusal({ code: 'something_new', message: 'm' })).toEqual({ code: 'platform_rejected', message: 'm' });
  });
});

describe('the row a settled inline sync left', () => {
  const agent = { id: 'agt_1', account_id: 'acc_1', voice_platform: 'platform_a', status: 'active', version: 2 } as AgentState;
  const summary: PlatformSyncSummary = {
    platform_agent_ids: { platform_a: 'pa-1' }, synced_version: 2, last_attempt_at: 't1', last_failure: null, last_reconciled_at: null, last_drift: null,
  };

  it('is the agent the run synced with the summary it projected, for a run that synced or will retry', () => {
    expect(settledRecord({ kind: 'synced', agent, summary })).toEqual({ state: agent, sync: summary });
    const retry = { kind: 'retry', agent, summary, error: { code: 'platform_unavailable', message: 'm' }, retryAfterMs: 100 } as const;
    expect(settledRecord(retry)).toEqual({ state: agent, sync: summary });
  });

  it('is unknown for a run that did not settle within the bound, that another holds, or whose agent is gone: only the row has its progress', () => {
    expect(settledRecord(undefined)).toBeUndefined();
    expect(settledRecord({ kind: 'busy' })).toBeUndefined();
    expect(settledRecord({ kind: 'gone' })).toBeUndefined();
    expect(settledRecord({ kind: 'stale' })).toBeUndefined();
  });
});
