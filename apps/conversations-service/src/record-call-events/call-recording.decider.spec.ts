import { describe, expect, it } from '@jest/globals';
import type { CallEvent } from '@voice/contracts';
import type { KnownAgent } from '../conversation/agent-policy.rules.js';
import {
  planCallRecording, plannedAppends, recordingScope, settleCallRecording,
  type IncomingEvent, type LoadedForRecording, type StoredCallEvent,
} from './call-recording.decider.js';

const t = (hhmm: string) => `2025-06-01T${hhmm}:00.000Z`;
const ms = (hhmm: string) => Date.parse(t(hhmm));

const agentOf = (id: string, account: string, changes: Partial<KnownAgent> = {}): KnownAgent => ({
  agent_id: id, account_id: account, name: id, voice_platform: 'platform_a', recording_enabled: true, transcription_enabled: true,
  status: 'active', version: 1, history: [{ version: 1, status: 'active', since_ms: ms('09:00') }], ...changes,
});
const active = agentOf('agt_a', 'acc_1');
/** Paused at 10:00. */
const paused = agentOf('agt_p', 'acc_1', { status: 'paused', version: 2, history: [{ version: 1, status: 'active', since_ms: ms('09:00') }, { version: 2, status: 'paused', since_ms: ms('10:00') }] });
/** Deleted at 10:00. */
const deleted = agentOf('agt_d', 'acc_1', { status: 'deleted', version: 2, history: [{ version: 1, status: 'active', since_ms: ms('09:00') }, { version: 2, status: 'deleted', since_ms: ms('10:00') }] });
/** Another account's agent. */
const other = agentOf('agt_o', 'acc_2', { voice_platform: 'platform_b' });
const muted = agentOf('agt_m', 'acc_1', { recording_enabled: false, transcription_enabled: false });
const agents = new Map([active, paused, deleted, other, muted].map((a) => [a.agent_id, a]));

const started = (id: string, conversation: string, agent: string, at = '10:30'): CallEvent =>
  ({ id, type: 'call.started', conversation_id: conversation, agent_id: agent, occurred_at: t(at), data: { caller_number: '+14155550123', start_time: t(at) } });
const ended = (id: string, conversation: string, agent: string, at = '10:45', data: Record<string, unknown> = {}): CallEvent =>
  ({ id, type: 'call.ended', conversation_id: conversation, agent_id: agent, occurred_at: t(at), data: { end_time: t(at), duration: 900, ...data } }) as CallEvent;
const transcript = (id: string, conversation: string, agent: string): CallEvent =>
  ({ id, type: 'call.transcript', conversation_id: conversation, agent_id: agent, occurred_at: t('10:46'), data: { segments: [{ speaker: 'agent', text: 'Hello', start_ms: 0, end_ms: 900 }] } });

const batch = (...events: CallEvent[]): IncomingEvent[] => events.map((event, index) => ({ index, event }));
const loaded = (changes: Partial<LoadedForRecording> = {}): LoadedForRecording => ({ agents, storedEvents: [], knownEventIds: [], refusals: [], erased: [], ...changes });
const storedOf = (accountId: string, event: CallEvent, version: number, voicePlatform: string | null = 'platform_a'): StoredCallEvent =>
  ({ accountId, conversationId: event.conversation_id, version, event, voicePlatform });
/** The plan, settled as if the insert stored every planned event. */
const recordAll = (input: LoadedForRecording, incoming: IncomingEvent[]) => {
  const plan = planCallRecording(input, incoming);
  const settled = settleCallRecording(plan, plannedAppends(plan).map((a) => ({ accountId: a.accountId, eventId: a.event.id })));
  return { plan, settled, outcomes: new Map([...plan.outcomes, ...settled.outcomes]) };
};

describe('recordingScope', () => {
  it('locks and reads the conversations of known agents only, per account, each event id once', () => {
    const scope = recordingScope(agents, batch(
      started('e1', 'c1', 'agt_a'), ended('e2', 'c1', 'agt_a'), started('e1', 'c1', 'agt_a'),
      started('e1', 'c1', 'agt_o'), started('e9', 'c9', 'agt_unknown'),
    ));
    expect(scope.conversations).toEqual([{ accountId: 'acc_1', conversationId: 'c1' }, { accountId: 'acc_2', conversationId: 'c1' }]);
    expect(scope.eventIds).toEqual([{ accountId: 'acc_1', eventId: 'e1' }, { accountId: 'acc_1', eventId: 'e2' }, { accountId: 'acc_2', eventId: 'e1' }]);
  });
});

describe('planCallRecording', () => {
  it('new events of a new conversation: appended from version 1, with the agent\'s platform', () => {
    const { plan, outcomes, settled } = recordAll(loaded(), batch(started('e1', 'c1', 'agt_a'), ended('e2', 'c1', 'agt_a')));
    expect(plannedAppends(plan).map((a) => [a.accountId, a.conversationId, a.event.id, a.version, a.voicePlatform]))
      .toEqual([['acc_1', 'c1', 'e1', 1, 'platform_a'], ['acc_1', 'c1', 'e2', 2, 'platform_a']]);
    expect([...outcomes]).toEqual([[0, { result: 'recorded' }], [1, { result: 'recorded' }]]);
    expect(settled.conversations).toHaveLength(1);
    expect(settled.conversations[0]).toMatchObject({ accountId: 'acc_1', streamVersion: 2, voicePlatform: 'platform_a', state: { id: 'c1', status: 'completed' } });
  });

  it('events of an erased conversation are dropped, nothing appended nor refused; the same id in another account is recorded', () => {
    const { plan, outcomes } = recordAll(
      loaded({ erased: [{ accountId: 'acc_1', conversationId: 'c1' }] }),
      batch(started('e1', 'c1', 'agt_a'), ended('e2', 'c1', 'agt_a'), started('e3', 'c1', 'agt_o')),
    );
    expect(outcomes.get(0)).toEqual({ result: 'erased', event_id: 'e1' });
    expect(outcomes.get(1)).toEqual({ result: 'erased', event_id: 'e2' });
    expect(outcomes.get(2)).toEqual({ result: 'recorded' });
    expect(plannedAppends(plan).map((a) => [a.accountId, a.event.id])).toEqual([['acc_2', 'e3']]);
    expect(plan.refusals).toEqual([]);
  });

  it('an event of an agent not known yet is parked; the rest of the batch goes on', () => {
    const lost = started('e9', 'c9', 'agt_unknown');
    const { plan, outcomes } = recordAll(loaded(), batch(lost, started('e1', 'c1', 'agt_a')));
    expect(plan.parked).toEqual([lost]);
    expect(outcomes.get(0)).toEqual({ result: 'parked', event_id: 'e9', agent_id: 'agt_unknown' });
    expect(outcomes.get(1)).toEqual({ result: 'recorded' });
  });

  it('a duplicate within the batch counts once, also across conversations of the account', () => {
    const { plan, outcomes } = recordAll(loaded(), batch(started('e1', 'c1', 'agt_a'), started('e1', 'c1', 'agt_a'), started('e1', 'c2', 'agt_a')));
    expect(plannedAppends(plan).map((a) => a.event.id)).toEqual(['e1']);
    expect([...outcomes].sort()).toEqual([[0, { result: 'recorded' }], [1, { result: 'duplicate' }], [2, { result: 'duplicate' }]]);
  });

  it('a duplicate of a stored event id changes nothing; the same id in another account is not a duplicate', () => {
    const { plan, outcomes, settled } = recordAll(
      loaded({ knownEventIds: [{ accountId: 'acc_1', eventId: 'e1' }] }),
      batch(started('e1', 'c1', 'agt_a'), started('e1', 'c1', 'agt_o')),
    );
    expect(outcomes.get(0)).toEqual({ result: 'duplicate' });
    expect(outcomes.get(1)).toEqual({ result: 'recorded' });
    expect(plannedAppends(plan).map((a) => a.accountId)).toEqual(['acc_2']);
    expect(settled.conversations.map((c) => [c.accountId, c.voicePlatform])).toEqual([['acc_2', 'platform_b']]);
  });

  it('a call starting while its agent is paused is refused whole, and the refusal is to be remembered', () => {
    const { plan, outcomes } = recordAll(loaded(), batch(started('e1', 'c1', 'agt_p', '10:30'), ended('e2', 'c1', 'agt_p', '10:45')));
    expect(plannedAppends(plan)).toEqual([]);
    const reason = `agent agt_p was paused when call c1 started (${t('10:30')})`;
    expect(outcomes.get(0)).toEqual({ result: 'not_answering', event_id: 'e1', agent_id: 'agt_p', reason });
    expect(outcomes.get(1)).toEqual({ result: 'not_answering', event_id: 'e2', agent_id: 'agt_p', reason });
    expect(plan.refusals).toEqual([{ accountId: 'acc_1', conversationId: 'c1', agentId: 'agt_p', status: 'paused', startedAt: t('10:30') }]);
  });

  it('a call starting once its agent is deleted is refused; one started before is recorded', () => {
    const { plan, outcomes } = recordAll(loaded(), batch(started('e1', 'c1', 'agt_d', '10:00'), started('e2', 'c2', 'agt_d', '09:59')));
    expect(outcomes.get(0)).toMatchObject({ result: 'not_answering', agent_id: 'agt_d' });
    expect(outcomes.get(1)).toEqual({ result: 'recorded' });
    expect(plan.refusals).toEqual([{ accountId: 'acc_1', conversationId: 'c1', agentId: 'agt_d', status: 'deleted', startedAt: t('10:00') }]);
  });

  it('a conversation refused before stays refused, and is not remembered twice', () => {
    const { plan, outcomes } = recordAll(
      loaded({ refusals: [{ accountId: 'acc_1', conversationId: 'c1', refusal: { agent_id: 'agt_p', status: 'paused' } }] }),
      batch(ended('e2', 'c1', 'agt_p', '11:30')),
    );
    expect(outcomes.get(0)).toEqual({
      result: 'not_answering', event_id: 'e2', agent_id: 'agt_p', reason: 'call c1 was refused before (agent agt_p was paused when it started)',
    });
    expect(plan.refusals).toEqual([]);
    expect(plan.streams).toEqual([]);
  });

  it('an end without its start is accepted even after the pause; a conversation already recorded accepts every later event', () => {
    const stored = storedOf('acc_1', started('e1', 'c1', 'agt_p', '10:30'), 1);
    const { outcomes } = recordAll(loaded({ storedEvents: [stored] }), batch(ended('e2', 'c1', 'agt_p'), ended('e3', 'c2', 'agt_p')));
    expect(outcomes.get(0)).toEqual({ result: 'recorded' });
    expect(outcomes.get(1)).toEqual({ result: 'recorded' });
  });

  it('numbers new events on from the stream\'s last version, and keeps the platform of its first stored event', () => {
    const first = storedOf('acc_1', started('e1', 'c1', 'agt_a', '09:30'), 1, 'platform_old');
    const second = storedOf('acc_1', { ...started('e2', 'c1', 'agt_a', '09:31'), type: 'call.progress', data: { duration: 60 } } as CallEvent, 2, 'platform_a');
    // Stored events may be handed over in any order.
    const { plan, settled } = recordAll(loaded({ storedEvents: [second, first] }), batch(ended('e3', 'c1', 'agt_a', '09:45'), transcript('e4', 'c1', 'agt_a')));
    expect(plannedAppends(plan).map((a) => [a.event.id, a.version])).toEqual([['e3', 3], ['e4', 4]]);
    expect(plan.streams[0].stored.map((s) => s.version)).toEqual([1, 2]);
    expect(settled.conversations[0]).toMatchObject({ streamVersion: 4, voicePlatform: 'platform_old', state: { status: 'completed', caller_number: '+14155550123' } });
    expect(settled.conversations[0].state.transcript).toHaveLength(1);
  });

  it('the platform of a conversation whose first event was stored without one stays unknown', () => {
    const first = storedOf('acc_1', started('e1', 'c1', 'agt_a', '09:30'), 1, null);
    const { settled } = recordAll(loaded({ storedEvents: [first] }), batch(ended('e2', 'c1', 'agt_a', '09:45')));
    expect(settled.conversations[0]).toMatchObject({ streamVersion: 2, voicePlatform: null });
  });

  it('applies the agent\'s switches before storing: no recording URL, no transcript segments', () => {
    const { plan, settled } = recordAll(loaded(), batch(
      ended('e1', 'c1', 'agt_m', '10:45', { recording_url: 'https://recordings.example.com/c1.mp3' }), transcript('e2', 'c1', 'agt_m'),
    ));
    const [end, text] = plannedAppends(plan).map((a) => a.event);
    expect(end.data).not.toHaveProperty('recording_url');
    expect(text.data).toEqual({ segments: [] });
    expect(settled.conversations[0].state).toMatchObject({ recording_url: null, transcript: [] });
  });
});

describe('settleCallRecording', () => {
  it('an event the insert did not store was stored meanwhile: a duplicate, left out of the fold and the version', () => {
    const plan = planCallRecording(loaded(), batch(started('e1', 'c1', 'agt_a'), ended('e2', 'c1', 'agt_a'), started('e3', 'c3', 'agt_a')));
    const settled = settleCallRecording(plan, [{ accountId: 'acc_1', eventId: 'e1' }]);
    expect([...settled.outcomes]).toEqual([[0, { result: 'recorded' }], [1, { result: 'duplicate' }], [2, { result: 'duplicate' }]]);
    expect(settled.conversations).toHaveLength(1);
    expect(settled.conversations[0]).toMatchObject({ streamVersion: 1, state: { id: 'c1', status: 'in_progress' } });
  });
});
