import { describe, expect, it } from '@jest/globals';
import { MAX_OUTBOUND_EVENT_BYTES, type ConversationChange, type ConversationDetail } from '@voice/contracts';
import { changeForTheBus, changeMessageId, changeMustFitTheBus, MAX_CHANGE_BYTES, withEndedDetail } from './conversation-change.rules.js';

function change(overrides: Partial<ConversationChange['conversation']> = {}, accountId = 'acct_0a1b2c3d4e5f60718293a4b5'): ConversationChange {
  return {
    type: 'conversation.updated',
    account_id: accountId,
    version: 3,
    conversation: {
      id: 'call_1', agent_id: 'agt_1', agent_name: 'Front Desk', caller_number: '+14155550100', status: 'completed',
      start_time: '2025-01-31T14:00:00.000Z', end_time: null, duration: 60, sentiment: null, outcome: null, topics: [],
      has_recording: false, has_transcript: false, summary: null, created_at: '2025-01-31T14:00:00.000Z', ...overrides,
    },
  };
}

describe('changeMustFitTheBus', () => {
  it('lets the largest item the call-event schema allows through (10,000-character summary, 50 topics of 100, 4-byte characters)', () => {
    const wide = '𝄞';
    const largest = change({
      summary: wide.repeat(10_000), topics: Array.from({ length: 50 }, () => wide.repeat(100)), agent_name: wide.repeat(200),
      id: 'c'.repeat(128), agent_id: 'a'.repeat(128), outcome: 'o'.repeat(64),
    });
    const serialized = JSON.stringify(largest);
    expect(Buffer.byteLength(serialized)).toBeLessThan(MAX_CHANGE_BYTES);
    expect(changeMustFitTheBus(largest, serialized)).toBeUndefined();
  });

  it('refuses a message over the bound', () => {
    const huge = change({ summary: 'x'.repeat(MAX_CHANGE_BYTES) });
    expect(changeMustFitTheBus(huge, JSON.stringify(huge))).toMatch(/bytes, over the/);
  });

  it('refuses an account id that would not be one subject token', () => {
    for (const accountId of ['acct.1', 'acct_*', 'acct_>', 'acct 1', '']) {
      const c = change({}, accountId);
      expect([accountId, changeMustFitTheBus(c, JSON.stringify(c))]).toEqual([accountId, 'the account id cannot be a subject token']);
    }
  });
});

describe('changeMessageId', () => {
  it('names the conversation version: a recording repeated after a crash is de-duplicated, the next version is not', () => {
    expect(changeMessageId(change())).toBe('acct_0a1b2c3d4e5f60718293a4b5:call_1:3');
    expect(changeMessageId({ ...change(), version: 4 })).not.toBe(changeMessageId(change()));
  });
});

function detailOf(c: ConversationChange, transcriptLines: number, lineLength = 100): ConversationDetail {
  return {
    ...c.conversation,
    updated_at: '2025-01-31T14:01:00.000Z',
    content: {
      transcript: Array.from({ length: transcriptLines }, (_, i) => ({ speaker: i % 2 ? 'agent' : 'caller', text: 'w'.repeat(lineLength), timestamp: i })) as never,
      recording_url: null, language: 'en', summary: null,
    },
    analytics: { sentiment: null, topics: [], keywords: [], satisfaction: null, intent: null },
    outcomes: { outcome: null, actions_taken: [], follow_up_tasks: [], integrations: [] },
    technical: { voice_platform: 'platform_a', quality: null, network: null, errors: [], platform_call_id: null, end_reason: null, cost: null, latency: [] },
    failure_reason: null,
    abandonment_reason: null,
  };
}

describe('the full record on a change that shows the call over', () => {
  it('is attached, transcript included, when it fits an outbound event', () => {
    const ended = change({ has_transcript: true });
    const withDetail = withEndedDetail(ended, detailOf(ended, 10));
    expect(withDetail.ended_detail?.content.transcript).toHaveLength(10);
    expect(withDetail.conversation).toEqual(ended.conversation);
  });

  it('is never attached to a call still in progress, nor when the record is gone', () => {
    const running = change({ status: 'in_progress' });
    expect(withEndedDetail(running, detailOf(running, 1))).not.toHaveProperty('ended_detail');
    expect(withEndedDetail(change(), undefined)).not.toHaveProperty('ended_detail');
  });

  it('a transcript of several MB is left out, so the change stays well within the bus limit and still carries the record', () => {
    const ended = change({ has_transcript: true });
    const huge = detailOf(ended, 40_000, 100);
    expect(Buffer.byteLength(JSON.stringify(huge))).toBeGreaterThan(1024 * 1024);
    const fitted = changeForTheBus(withEndedDetail(ended, huge));
    if ('refusal' in fitted) throw new Error(fitted.refusal);
    expect(fitted.detailLeftOut).toBe(false);
    expect(fitted.change.ended_detail).toBeDefined();
    expect(fitted.change.ended_detail!.content).not.toHaveProperty('transcript');
    expect(Buffer.byteLength(fitted.payload)).toBeLessThan(MAX_OUTBOUND_EVENT_BYTES);
  });

  it('a record too big for the bus even without its transcript is left out, and the change itself is still published', () => {
    const ended = change();
    const oversized = { ...withEndedDetail(ended, detailOf(ended, 0)) };
    oversized.ended_detail = { ...oversized.ended_detail!, analytics: { ...oversized.ended_detail!.analytics, keywords: ['k'.repeat(MAX_CHANGE_BYTES)] } };
    const fitted = changeForTheBus(oversized);
    if ('refusal' in fitted) throw new Error(fitted.refusal);
    expect(fitted.detailLeftOut).toBe(true);
    expect(fitted.change).toEqual(ended);
  });
});
