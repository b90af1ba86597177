import { describe, expect, it } from '@jest/globals';
import type { ConversationChange } from '@voice/contracts';
import { changeMessageId, changeMustFitTheBus, MAX_CHANGE_BYTES } from './conversation-change.rules.js';

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
