import { describe, expect, it } from '@jest/globals';
import {
  MAX_OUTBOUND_EVENT_BYTES, type AgentIntegrationEvent, type AgentSyncFailedNotice, type ConversationChange, type ConversationListItem,
  type EndedConversationDetail, type IntegrationCredentialsRefusedNotice, type OutboundEvent,
} from '@voice/contracts';
import {
  agentEventDraft, agentStreamDraft, coalescedFirstAttempt, conversationEventDraft, endpointsFor, transcriptUrl, type EndpointFilter,
} from './outbound-event.rules.js';
import { isAgentStreamMessage } from './source-message.rules.js';

const agentEvent = (type: AgentIntegrationEvent['type']): AgentIntegrationEvent => ({
  id: 'evt-1',
  type,
  version: 3,
  occurred_at: '2026-01-01T00:00:00.000Z',
  agent: { agent_id: 'agt_1', account_id: 'acct_1', name: 'A', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
});

const conversation = (status: ConversationListItem['status']): ConversationListItem => ({
  id: 'conv_1', agent_id: 'agt_1', agent_name: 'A', caller_number: null, status, start_time: null, end_time: null, duration: 0, sentiment: null,
  outcome: null, topics: [], has_recording: false, has_transcript: false, summary: null, created_at: '2026-01-01T00:00:00.000Z',
});
const change = (type: ConversationChange['type'], status: ConversationListItem['status'], version: number): ConversationChange => ({
  type, account_id: 'acct_1', version, conversation: conversation(status),
});

describe('outbound events from agent events', () => {
  it.each([
    ['AgentCreated', 'agent.created'], ['AgentUpdated', 'agent.updated'], ['AgentPaused', 'agent.updated'], ['AgentResumed', 'agent.updated'],
    ['AgentPhoneNumberAssigned', 'agent.updated'], ['AgentDeleted', 'agent.deleted'],
  ] as const)('%s becomes %s, keyed by the agent event id, carrying the agent', (source, type) => {
    const draft = agentEventDraft(agentEvent(source))!;
    expect(draft).toMatchObject({ account_id: 'acct_1', type, source_key: 'agent:evt-1', agent_id: 'agt_1', conversation_id: null });
    expect(draft.data).toEqual({ agent: expect.objectContaining({ id: 'agt_1', name: 'A' }), version: 3 });
    expect(draft.data.agent).not.toHaveProperty('account_id');
  });

  it('an agent event type it does not know becomes nothing', () => {
    expect(agentEventDraft(agentEvent('AgentRenamedSomehow' as never))).toBeUndefined();
  });
});

describe('outbound events from conversation changes', () => {
  it('the first change of a call in progress is conversation.started, later ones conversation.updated', () => {
    expect(conversationEventDraft(change('conversation.created', 'in_progress', 1), false).type).toBe('conversation.started');
    expect(conversationEventDraft(change('conversation.updated', 'in_progress', 2), false).type).toBe('conversation.updated');
  });

  it.each(['completed', 'failed', 'abandoned'] as const)('the first change showing it %s is conversation.ended, later ones conversation.updated', (status) => {
    expect(conversationEventDraft(change('conversation.updated', status, 4), false).type).toBe('conversation.ended');
    expect(conversationEventDraft(change('conversation.created', status, 1), false).type).toBe('conversation.ended');
    expect(conversationEventDraft(change('conversation.updated', status, 5), true).type).toBe('conversation.updated');
  });

  it('carries the list item and the version as sequence, keyed per conversation version', () => {
    const draft = conversationEventDraft(change('conversation.updated', 'in_progress', 7), false);
    expect(draft).toMatchObject({ source_key: 'conversation:acct_1:conv_1:7', agent_id: 'agt_1', conversation_id: 'conv_1' });
    expect(draft.data).toEqual({ conversation: conversation('in_progress'), sequence: 7 });
  });
});

describe('which endpoints an event goes to', () => {
  const endpoint = (id: string, over: Partial<EndpointFilter> = {}): EndpointFilter => ({ id, enabled: true, event_types: null, agent_ids: null, ...over });

  it('every enabled endpoint by default; disabled ones never', () => {
    expect(endpointsFor({ type: 'agent.created', agent_id: 'agt_1' }, [endpoint('a'), endpoint('b', { enabled: false })])).toEqual(['a']);
  });

  it('an endpoint naming event types gets only those', () => {
    const endpoints = [endpoint('a', { event_types: ['conversation.ended'] }), endpoint('b', { event_types: ['agent.created', 'agent.deleted'] })];
    expect(endpointsFor({ type: 'agent.created', agent_id: 'agt_1' }, endpoints)).toEqual(['b']);
    expect(endpointsFor({ type: 'conversation.ended', agent_id: 'agt_1' }, endpoints)).toEqual(['a']);
  });

  it('an endpoint naming agents gets only their events, and none without an agent', () => {
    const endpoints = [endpoint('a', { agent_ids: ['agt_2'] }), endpoint('b', { agent_ids: ['agt_1', 'agt_2'] })];
    expect(endpointsFor({ type: 'agent.updated', agent_id: 'agt_1' }, endpoints)).toEqual(['b']);
    expect(endpointsFor({ type: 'webhook.test', agent_id: null }, endpoints)).toEqual([]);
  });
});

describe('coalescing in-progress conversation updates', () => {
  it('marks updates of a call in progress only', () => {
    expect(conversationEventDraft(change('conversation.updated', 'in_progress', 2), false).coalesced).toBe(true);
    expect(conversationEventDraft(change('conversation.updated', 'completed', 5), true).coalesced).toBeUndefined();
    expect(conversationEventDraft(change('conversation.created', 'in_progress', 1), false).coalesced).toBeUndefined();
  });

  it('spaces an endpoint’s updates of one conversation by 5 s after the previous one was due', () => {
    const now = new Date('2026-01-01T00:00:10Z');
    expect(coalescedFirstAttempt(now, 0, undefined)).toEqual(now);
    expect(coalescedFirstAttempt(now, 0, new Date('2026-01-01T00:00:08Z'))).toEqual(new Date('2026-01-01T00:00:13Z'));
    expect(coalescedFirstAttempt(now, 0, new Date('2026-01-01T00:00:01Z'))).toEqual(now);
    expect(coalescedFirstAttempt(now, 4_000, new Date('2026-01-01T00:00:08Z'))).toEqual(new Date('2026-01-01T00:00:14Z'));
  });
});

const syncFailed: AgentSyncFailedNotice = {
  id: 'evt-sync-1',
  type: 'AgentSyncFailed',
  version: 2,
  occurred_at: '2026-01-01T00:00:05.000Z',
  agent: agentEvent('AgentUpdated').agent,
  failure: { code: 'platform_rejected', message: 'platform_a rejected the agent (400)', field: 'voice_id', permanent: true, platform: 'platform_a', attempt: 1 },
};
const credentialsRefused: IntegrationCredentialsRefusedNotice = {
  id: 'evt-int-1',
  type: 'IntegrationCredentialsRefused',
  occurred_at: '2026-01-01T00:00:06.000Z',
  account_id: 'acct_1',
  integration_id: 'int_1',
  platform: 'platform_b',
  reason: 'platform_b refused the stored API key while an agent was being synced to it.',
};

describe('outbound events from what agents-service met on the platforms', () => {
  it('a failed sync is agent.sync_failed, keyed by its recorded event, with the agent snapshot and the failure', () => {
    const draft = agentStreamDraft(syncFailed)!;
    expect(draft).toMatchObject({ account_id: 'acct_1', type: 'agent.sync_failed', source_key: 'agent:evt-sync-1', agent_id: 'agt_1', occurred_at: syncFailed.occurred_at });
    expect(draft.data).toEqual({
      agent: { id: 'agt_1', name: 'A', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
      version: 2,
      failure: syncFailed.failure,
    });
  });

  it('a refused key is integration.credentials_invalid for the account (no agent), with when and why and nothing else', () => {
    const draft = agentStreamDraft(credentialsRefused)!;
    expect(draft).toMatchObject({ account_id: 'acct_1', type: 'integration.credentials_invalid', source_key: 'integration:evt-int-1', agent_id: null });
    expect(draft.data).toEqual({ platform: 'platform_b', detected_at: '2026-01-01T00:00:06.000Z', reason: credentialsRefused.reason });
  });

  it('an endpoint naming agents gets sync failures of those agents, never a refused key (it concerns no agent)', () => {
    const only = [{ id: 'e', enabled: true, event_types: null, agent_ids: ['agt_1'] }];
    expect(endpointsFor(agentStreamDraft(syncFailed)!, only)).toEqual(['e']);
    expect(endpointsFor(agentStreamDraft(credentialsRefused)!, only)).toEqual([]);
  });

  it('each notice is checked for its own shape before anything is recorded', () => {
    expect(isAgentStreamMessage(syncFailed)).toBe(true);
    expect(isAgentStreamMessage(credentialsRefused)).toBe(true);
    expect(isAgentStreamMessage(agentEvent('AgentCreated'))).toBe(true);
    expect(isAgentStreamMessage({ ...syncFailed, failure: { ...syncFailed.failure, platform: 'platform_z' } })).toBe(false);
    expect(isAgentStreamMessage({ ...syncFailed, failure: undefined })).toBe(false);
    expect(isAgentStreamMessage({ ...credentialsRefused, account_id: undefined })).toBe(false);
  });
});

describe('conversation.ended carries the full record', () => {
  const record = (transcriptLines: number): EndedConversationDetail => ({
    ...conversation('completed'),
    has_transcript: transcriptLines > 0,
    updated_at: '2026-01-01T00:05:00.000Z',
    content: {
      transcript: Array.from({ length: transcriptLines }, (_, i) => ({ speaker: 'caller', text: 'word '.repeat(40), timestamp: i })) as never,
      recording_url: null, language: 'en', summary: 'Booked.',
    },
    analytics: { sentiment: null, topics: [], keywords: [], satisfaction: null, intent: null },
    outcomes: { outcome: null, actions_taken: [], follow_up_tasks: [], integrations: [] },
    technical: { voice_platform: 'platform_a', quality: null, network: null, errors: [], platform_call_id: null, end_reason: null, cost: null, latency: [] },
    failure_reason: null,
    abandonment_reason: null,
  });
  const ended = (detail: EndedConversationDetail | undefined): ConversationChange => ({ ...change('conversation.updated', 'completed', 6), ...(detail ? { ended_detail: detail } : {}) });
  const bodyBytes = (data: unknown) => {
    const body: OutboundEvent = { id: 'evt_0123456789abcdef01234567', type: 'conversation.ended', timestamp: '2026-01-01T00:05:00.000Z', data };
    return Buffer.byteLength(JSON.stringify(body));
  };

  it('transcript included while the body fits 256 KiB, no transcript_url', () => {
    const draft = conversationEventDraft(ended(record(20)), false);
    expect(draft.type).toBe('conversation.ended');
    expect(draft.data).toEqual({ conversation: record(20), sequence: 6 });
  });

  it('past 256 KiB the transcript is left out and transcript_url says where it is; the body stays within 256 KiB', () => {
    const big = record(3_000);
    expect(bodyBytes({ conversation: big, sequence: 6 })).toBeGreaterThan(MAX_OUTBOUND_EVENT_BYTES);
    const draft = conversationEventDraft(ended(big), false, 'https://api.example.com/');
    const data = draft.data as { conversation: EndedConversationDetail; transcript_url?: string };
    expect(data.conversation.content).not.toHaveProperty('transcript');
    expect(data.conversation.summary).toBe(null);
    expect(data.conversation.content.summary).toBe('Booked.');
    expect(data.transcript_url).toBe('https://api.example.com/v1/conversations/conv_1/transcript');
    expect(bodyBytes(draft.data)).toBeLessThanOrEqual(MAX_OUTBOUND_EVENT_BYTES);
  });

  it('a record that came without its transcript (left out before the bus) gets transcript_url too', () => {
    const { transcript: _leftOut, ...content } = record(1).content;
    const data = conversationEventDraft(ended({ ...record(1), content }), false).data as { transcript_url?: string };
    expect(data.transcript_url).toBe('/v1/conversations/conv_1/transcript');
  });

  it('the transcript path without a public base URL; the id is escaped', () => {
    expect(transcriptUrl('call/1 2')).toBe('/v1/conversations/call%2F1%202/transcript');
    expect(transcriptUrl('c1', 'http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/v1/conversations/c1/transcript');
  });

  it('only conversation.ended carries the record: a later update, and a change without it, carry the list item', () => {
    expect(conversationEventDraft(ended(record(2)), true).data).toEqual({ conversation: conversation('completed'), sequence: 6 });
    expect(conversationEventDraft(ended(undefined), false).data).toEqual({ conversation: conversation('completed'), sequence: 6 });
  });
});
