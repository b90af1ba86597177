import { describe, expect, it } from '@jest/globals';
import type { CheckAnsweringRequest } from '@voice/contracts';
import type { KnownAgent } from '../conversation/agent-policy.rules.js';
import { checkedConversations, isCheckAnsweringRequest, MAX_CHECKED_EVENTS, refusedEvents, type ConversationStanding } from './check-answering.rules.js';

const t = (hhmm: string) => `2025-06-01T${hhmm}:00.000Z`;
/** Paused at 10:00. */
const paused: KnownAgent = {
  agent_id: 'agt_p', account_id: 'acc_1', name: 'P', voice_platform: 'platform_a', recording_enabled: true, transcription_enabled: true,
  status: 'paused', version: 2,
  history: [{ version: 1, status: 'active', since_ms: Date.parse(t('09:00')) }, { version: 2, status: 'paused', since_ms: Date.parse(t('10:00')) }],
};
const foreign: KnownAgent = { ...paused, agent_id: 'agt_x', account_id: 'acc_2' };
const agents = new Map([paused, foreign].map((a) => [a.agent_id, a]));
const request = (events: CheckAnsweringRequest['events']): CheckAnsweringRequest => ({ account_id: 'acc_1', events });
const check = (r: CheckAnsweringRequest, standing = new Map<string, ConversationStanding>()) => refusedEvents(checkedConversations(r, agents), agents, standing);

describe('check-answering rules', () => {
  it('accepts only the request shape it answers', () => {
    expect(isCheckAnsweringRequest(request([{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:00'), type: 'call.started', id: 'e1' }]))).toBe(true);
    expect(isCheckAnsweringRequest(request([]))).toBe(true);
    expect(isCheckAnsweringRequest(undefined)).toBe(false);
    expect(isCheckAnsweringRequest({ account_id: 'acc_1' })).toBe(false);
    expect(isCheckAnsweringRequest(request([{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: 'yesterday' }]))).toBe(false);
    expect(isCheckAnsweringRequest(request([{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:00'), type: 7 as unknown as string }]))).toBe(false);
    const tooMany = Array.from({ length: MAX_CHECKED_EVENTS + 1 }, () => ({ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:00') }));
    expect(isCheckAnsweringRequest(request(tooMany))).toBe(false);
  });

  it('refuses every event of a call whose start is during the pause, and none of an end without its start', () => {
    expect(check(request([
      { conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:30'), type: 'call.started', id: 'e1' },
      { conversation_id: 'c2', agent_id: 'agt_p', occurred_at: t('10:30'), type: 'call.ended', id: 'e2' },
      { conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:40'), type: 'call.ended', id: 'e3' },
    ]))).toEqual([{ index: 0, agent_id: 'agt_p', status: 'paused' }, { index: 2, agent_id: 'agt_p', status: 'paused' }]);
  });

  it('an untyped event of an unrecorded call may be its start', () => {
    expect(check(request([{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:30') }]))).toEqual([{ index: 0, agent_id: 'agt_p', status: 'paused' }]);
  });

  it('a recorded conversation accepts; one refused before refuses', () => {
    const events = [{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('10:30'), type: 'call.started', id: 'e1' }];
    expect(check(request(events), new Map([['c1', { recorded: true, refused: undefined }]]))).toEqual([]);
    const late = [{ conversation_id: 'c1', agent_id: 'agt_p', occurred_at: t('11:30'), type: 'call.ended', id: 'e2' }];
    expect(check(request(late), new Map([['c1', { recorded: false, refused: { agent_id: 'agt_p', status: 'deleted' } }]])))
      .toEqual([{ index: 0, agent_id: 'agt_p', status: 'deleted' }]);
  });

  it('leaves out another account\'s agent and keeps an agent not known yet', () => {
    const conversations = checkedConversations(request([
      { conversation_id: 'c1', agent_id: 'agt_x', occurred_at: t('10:30') },
      { conversation_id: 'c2', agent_id: 'agt_new', occurred_at: t('10:30') },
    ]), agents);
    expect([...conversations.keys()]).toEqual(['c2']);
    expect(refusedEvents(conversations, agents, new Map())).toEqual([]);
  });
});
