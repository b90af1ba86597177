import { describe, expect, it } from '@jest/globals';
import type { OriginatedAgentEvent } from '@voice/contracts';
import { agentEventEntries, dataRequestSettledEntry, isAuditedAgentEventType } from './audit.rules.js';

const agent = {
  agent_id: 'agt_1', account_id: 'acct_1', name: 'Front desk', voice_platform: 'platform_a', status: 'active',
  recording_enabled: true, transcription_enabled: true,
} as OriginatedAgentEvent['agent'];

const event = (overrides: Partial<OriginatedAgentEvent>): OriginatedAgentEvent => ({
  id: 'evt-1',
  type: 'AgentUpdated',
  version: 2,
  occurred_at: '2025-03-01T10:00:00.000Z',
  agent,
  origin: { request_id: 'req-1', actor_key_id: 'key_0123456789abcdef01234567', client_address: '203.0.113.7' },
  ...overrides,
});

describe('audit entries of agent events', () => {
  it('an update names its changed fields, by the key and request that made it, at the event’s time', () => {
    expect(agentEventEntries(event({ changed_fields: ['name', 'system_prompt'] }))).toEqual([
      {
        account_id: 'acct_1',
        action: 'agent.updated',
        actor: { type: 'api_key', key_id: 'key_0123456789abcdef01234567' },
        target_id: 'agt_1',
        changed_fields: ['name', 'system_prompt'],
        request_id: 'req-1',
        client_address: '203.0.113.7',
        occurred_at: '2025-03-01T10:00:00.000Z',
        source_id: 'evt-1',
      },
    ]);
  });

  it('an update of a privacy setting is also an agent.privacy_settings_changed entry naming only those settings', () => {
    const entries = agentEventEntries(event({ changed_fields: ['store_content', 'name', 'pii_redaction', 'retention'] }));
    expect(entries.map((e) => [e.action, e.changed_fields, e.source_id])).toEqual([
      ['agent.updated', ['store_content', 'name', 'pii_redaction', 'retention'], 'evt-1'],
      ['agent.privacy_settings_changed', ['store_content', 'pii_redaction', 'retention'], 'evt-1:privacy'],
    ]);
  });

  it('creates, pauses, resumes and deletes name no fields', () => {
    const actions = (['AgentCreated', 'AgentPaused', 'AgentResumed', 'AgentDeleted'] as const).map((type) => agentEventEntries(event({ type }))[0]);
    expect(actions.map((e) => [e.action, e.changed_fields])).toEqual([
      ['agent.created', null], ['agent.paused', null], ['agent.resumed', null], ['agent.deleted', null],
    ]);
  });

  it('an event no key asked for is the system’s; one recorded before events carried their origin is not guessed at', () => {
    const [withoutKey] = agentEventEntries(event({ type: 'AgentPaused', origin: { request_id: null, actor_key_id: null, client_address: null } }));
    expect(withoutKey).toMatchObject({ action: 'agent.paused', actor: { type: 'system' }, request_id: null, client_address: null });
    expect(agentEventEntries(event({ type: 'AgentPaused', origin: undefined }))).toEqual([]);
  });

  it('a number the platform assigned, a notice, or a name that is not an event type is not audited', () => {
    expect(agentEventEntries(event({ type: 'AgentPhoneNumberAssigned' }))).toEqual([]);
    for (const type of ['AgentPhoneNumberAssigned', 'agent.sync_failed', 'constructor', 'toString', undefined, 7]) {
      expect(isAuditedAgentEventType(type)).toBe(false);
    }
    expect(isAuditedAgentEventType('AgentDeleted')).toBe(true);
  });
});

describe('audit entries of data request settlements', () => {
  const settled = { event_id: 'drs-1', type: 'DataRequestSettled', account_id: 'acct_1', request_id: 'dr_1', request_type: 'erasure', conversations_done: 3, settled_at: '2025-03-01T10:00:05.000Z' } as const;

  it('a completed request is data_request.completed, a failed one data_request.failed: the system’s, at its settlement', () => {
    expect(dataRequestSettledEntry({ ...settled, status: 'completed' })).toEqual({
      account_id: 'acct_1', action: 'data_request.completed', actor: { type: 'system' }, target_id: 'dr_1', changed_fields: null,
      request_id: null, client_address: null, source_id: 'drs-1', occurred_at: '2025-03-01T10:00:05.000Z',
    });
    expect(dataRequestSettledEntry({ ...settled, status: 'failed' }).action).toBe('data_request.failed');
  });
});
