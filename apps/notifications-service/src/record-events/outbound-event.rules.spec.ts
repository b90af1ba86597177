import { describe, expect, it } from '@jest/globals';
import type { AgentIntegrationEvent, ConversationChange, ConversationListItem } from '@voice/contracts';
import { agentEventDraft, coalescedFirstAttempt, conversationEventDraft, endpointsFor, type EndpointFilter } from './outbound-event.rules.js';

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
