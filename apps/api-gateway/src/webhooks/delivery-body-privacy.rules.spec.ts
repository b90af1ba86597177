import { describe, expect, it } from '@jest/globals';
import { DEFAULT_PII_REDACTION_CATEGORIES, type AgentPrivacySettings } from '@voice/contracts';
import { mapPlatformWebhook } from '@voice/voice-platforms';
import { NOT_STORED, storedDeliveryBody, WHILE_AGENT_UNKNOWN, type CallIdentity } from './delivery-body-privacy.rules.js';

const CARD_SAID = 'four one one one, one one one one, one one one one, one one one one';
const platformA = {
  event: 'call_ended',
  call: {
    call_id: 'call_7f3a', agent_id: 'agent_0123', direction: 'inbound', from_number: '+14155550123', to_number: '+14155550199', call_status: 'ended',
    start_timestamp: 1738332300000, end_timestamp: 1738332552000, duration_ms: 252000, disconnection_reason: 'agent_hangup',
    transcript_object: [
      { role: 'agent', content: 'Your card number, please?', words: [{ word: 'Your', start: 0.4, end: 0.7 }] },
      {
        role: 'user', content: `it is ${CARD_SAID}, and my email is ann@example.com`,
        words: ['it', 'is', 'four', 'one', 'one', 'one,', 'one', 'one', 'one', 'one,', 'one', 'one', 'one', 'one,', 'one', 'one', 'one', 'one', 'thanks']
          .map((word, i) => ({ word, start: i, end: i + 0.5 })),
      },
    ],
    recording_url: 'https://recordings.platform-a.example/call_7f3a.wav',
    call_analysis: { call_summary: 'Paid with card 4111 1111 1111 1111; receipt to ann@example.com.', user_sentiment: 'Positive' },
  },
};
const identity: CallIdentity = { platformCallId: 'call_7f3a', platformAgentId: 'agent_0123', callerNumber: '+14155550123' };
const settings = (over: Partial<AgentPrivacySettings['pii_redaction']> = {}, storeContent = true): AgentPrivacySettings => ({
  pii_redaction: { enabled: true, categories: [...DEFAULT_PII_REDACTION_CATEGORIES], ...over },
  store_content: storeContent,
});
const stored = (privacy: AgentPrivacySettings, body: unknown = platformA) =>
  JSON.parse(storedDeliveryBody(Buffer.from(JSON.stringify(body)), privacy, identity).toString('utf8')) as typeof platformA;

describe('what the delivery log keeps of a webhook body', () => {
  it('keeps the bytes as received when the agent neither redacts nor drops content', () => {
    const body = Buffer.from(JSON.stringify(platformA, null, 2));
    expect(storedDeliveryBody(body, settings({ enabled: false }), identity)).toBe(body);
  });

  it('redacts what was said, the summary and timed words; ids, numbers, timestamps and the call’s shape stay', () => {
    const out = stored(settings());
    const text = JSON.stringify(out);
    expect(text).not.toContain('ann@example.com');
    expect(text).not.toContain('4111');
    expect(out.call.transcript_object[1].content).toBe('it is [CREDIT_CARD], and my email is [EMAIL]');
    expect(out.call.call_analysis.call_summary).toBe('Paid with card [CREDIT_CARD]; receipt to [EMAIL].');
    const words = out.call.transcript_object[1].words.map((w) => w.word);
    expect(words.slice(0, 2)).toEqual(['it', 'is']);
    expect(words.slice(2, 18).every((w) => w === '[CREDIT_CARD]')).toBe(true);
    expect(words[18]).toBe('thanks');
    expect(out.call.transcript_object[1].words[5]).toEqual({ word: '[CREDIT_CARD]', start: 5, end: 5.5 });
    expect(out.call).toMatchObject({ call_id: 'call_7f3a', agent_id: 'agent_0123', from_number: '+14155550123', to_number: '+14155550199', start_timestamp: 1738332300000 });
  });

  it('redacts only the agent’s categories, and masks the caller’s number with caller_number', () => {
    const out = stored(settings({ categories: ['email', 'caller_number'] }));
    expect(out.call.transcript_object[1].content).toBe(`it is ${CARD_SAID}, and my email is [EMAIL]`);
    expect(out.call.from_number).toBe('**23');
    expect(out.call.to_number).toBe('+14155550199');
  });

  it('without content (store_content false): no transcript, words, summary or recording URL; what a replay needs stays', () => {
    const out = stored(settings({ enabled: false }, false));
    expect(out.call.transcript_object.map((t) => [t.role, t.content, t.words])).toEqual([['agent', NOT_STORED, []], ['user', NOT_STORED, []]]);
    expect(out.call.recording_url).toBe(NOT_STORED);
    expect(out.call.call_analysis).toEqual({ call_summary: NOT_STORED, user_sentiment: 'Positive' });
    expect(out.call).toMatchObject({ call_id: 'call_7f3a', from_number: '+14155550123', call_status: 'ended', disconnection_reason: 'agent_hangup' });
  });

  it('a stored body still maps to the same call and events (a transcript’s id follows its text), redacted', () => {
    const mapping = mapPlatformWebhook('platform_a', stored(settings()));
    const original = mapPlatformWebhook('platform_a', platformA);
    expect(mapping.result).toBe('mapped');
    if (mapping.result !== 'mapped' || original.result !== 'mapped') return;
    const shape = (events: typeof mapping.events) => events.map((e) => [e.type === 'call.transcript' ? 'transcript' : e.id, e.type, e.conversation_id]);
    expect(shape(mapping.events)).toEqual(shape(original.events));
    expect(JSON.stringify(mapping.events)).toContain('[CREDIT_CARD]');
  });

  it('an unknown agent’s body has every category redacted; a body that is not JSON is redacted as text', () => {
    expect(JSON.stringify(stored(WHILE_AGENT_UNKNOWN))).not.toContain('ann@example.com');
    const notJson = storedDeliveryBody(Buffer.from('call me at (415) 555-0132 {'), WHILE_AGENT_UNKNOWN, { platformCallId: null, platformAgentId: null, callerNumber: null });
    expect(notJson.toString('utf8')).toBe('call me at [PHONE_NUMBER] {');
  });
});
