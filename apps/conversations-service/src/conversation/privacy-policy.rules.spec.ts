import { describe, expect, it } from '@jest/globals';
import type { CallEvent, PiiRedactionCategory } from '@voice/contracts';
import { applyAgentPolicy, type AgentSwitches } from './agent-policy.rules.js';
import { maskCallerNumber, parkedForm } from './privacy-policy.rules.js';

const CARD_SAID = 'four one one one, one one one one, one one one one, one one one one';
const base = { id: 'evt_1', conversation_id: 'conv_1', agent_id: 'agt_1', occurred_at: '2026-01-01T10:00:00.000Z' };
const started: CallEvent = { ...base, type: 'call.started', data: { caller_number: '+14155550123', start_time: '2026-01-01T10:00:00.000Z' } };
const transcript: CallEvent = {
  ...base,
  type: 'call.transcript',
  data: {
    segments: [
      { speaker: 'caller', text: `my card is ${CARD_SAID}, thanks`, start_ms: 1200, end_ms: 5400 },
      { speaker: 'agent', text: 'Thanks, and your email?', start_ms: 5600, end_ms: 7000 },
      { speaker: 'caller', text: 'john dot smith at gmail dot com', start_ms: 7200, end_ms: 9100 },
    ],
    provisional: true,
  },
};
const ended: CallEvent = {
  ...base,
  type: 'call.ended',
  data: {
    end_time: '2026-01-01T10:05:00.000Z',
    duration: 300,
    caller_number: '+14155550123',
    recording_url: 'https://rec.example/1.mp3',
    summary: 'Caller paid with card 4111 1111 1111 1111 and asked for a call back on (415) 555-0132.',
    sentiment: 'positive',
    topics: ['billing', 'ssn 123-45-6789'],
    keywords: ['ann@example.com', 'refund'],
    actions_taken: ['sent receipt to ann@example.com'],
    follow_up_tasks: [{ description: 'call back (415) 555-0132', assignee: 'billing' }],
    satisfaction: { score: 4, indicators: ['thanked the agent'] },
    outcome: 'resolved',
    intent: 'payment',
    cost: { amount: 0.42, currency: 'USD' },
  },
};

const all = ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'] as const;
const agent = (over: Partial<AgentSwitches> = {}): AgentSwitches => ({
  recording_enabled: true,
  transcription_enabled: true,
  pii_redaction: { enabled: false, categories: [...all] },
  store_content: true,
  ...over,
});
const redacting = (categories: PiiRedactionCategory[] = [...all]) =>
  agent({ pii_redaction: { enabled: true, categories } });

describe('redaction at ingest', () => {
  it('keeps every event as it came when redaction is off and content is stored', () => {
    for (const event of [started, transcript, ended]) expect(applyAgentPolicy(event, agent())).toEqual(event);
    expect(applyAgentPolicy(transcript, agent({ pii_redaction: { enabled: false, categories: [...all] } }))).toEqual(transcript);
  });

  it('redacts each transcript segment, keeping speaker, timing and the provisional flag', () => {
    const out = applyAgentPolicy(transcript, redacting());
    expect(out.data).toEqual({
      segments: [
        { speaker: 'caller', text: 'my card is [CREDIT_CARD], thanks', start_ms: 1200, end_ms: 5400 },
        { speaker: 'agent', text: 'Thanks, and your email?', start_ms: 5600, end_ms: 7000 },
        { speaker: 'caller', text: '[EMAIL]', start_ms: 7200, end_ms: 9100 },
      ],
      provisional: true,
    });
  });

  it('redacts the summary, topics, keywords, actions and follow-up tasks of an end; metadata and analytics stay', () => {
    const out = applyAgentPolicy(ended, redacting());
    expect(out.data).toEqual({
      ...ended.data,
      summary: 'Caller paid with card [CREDIT_CARD] and asked for a call back on [PHONE_NUMBER].',
      topics: ['billing', 'ssn [SSN]'],
      keywords: ['[EMAIL]', 'refund'],
      actions_taken: ['sent receipt to [EMAIL]'],
      follow_up_tasks: [{ description: 'call back [PHONE_NUMBER]', assignee: 'billing' }],
    });
  });

  it('redacts only the categories the agent names', () => {
    const out = applyAgentPolicy(ended, redacting(['credit_card']));
    expect(out.data).toMatchObject({ summary: 'Caller paid with card [CREDIT_CARD] and asked for a call back on (415) 555-0132.', keywords: ['ann@example.com', 'refund'] });
    expect(applyAgentPolicy(transcript, redacting([]))).toEqual(transcript);
  });

  it('keeps the caller number unless caller_number is asked for; then only its last 2 digits', () => {
    expect(applyAgentPolicy(started, redacting()).data).toEqual(started.data);
    expect(applyAgentPolicy(started, redacting(['caller_number'])).data).toEqual({ ...started.data, caller_number: '**23' });
    expect(applyAgentPolicy(ended, redacting(['caller_number'])).data).toMatchObject({ caller_number: '**23', summary: ended.data.summary });
    expect(maskCallerNumber('+447911123456')).toBe('**56');
  });

  it('applies to progress topics and to the analysis of a failed or abandoned call', () => {
    const progress: CallEvent = { ...base, type: 'call.progress', data: { duration: 30, topics: ['card 4111111111111111'] } };
    expect(applyAgentPolicy(progress, redacting()).data).toEqual({ duration: 30, topics: ['card [CREDIT_CARD]'] });
    const failed: CallEvent = { ...base, type: 'call.failed', data: { failure_reason: 'network_error', summary: 'email ann@example.com' } };
    expect(applyAgentPolicy(failed, redacting()).data).toEqual({ failure_reason: 'network_error', summary: 'email [EMAIL]' });
  });
});

describe('zero retention (store_content false)', () => {
  const zero = agent({ store_content: false });

  it('keeps a transcript event with no segments', () => {
    expect(applyAgentPolicy(transcript, zero).data).toEqual({ segments: [], provisional: true });
  });

  it('keeps no summary nor recording URL, and every metric and analytic', () => {
    const { summary: _s, recording_url: _r, ...rest } = ended.data as Extract<CallEvent, { type: 'call.ended' }>['data'];
    expect(applyAgentPolicy(ended, zero).data).toEqual(rest);
  });

  it('keeps the start as it is, and redacts what it keeps when redaction is on too', () => {
    expect(applyAgentPolicy(started, zero)).toEqual(started);
    const both = agent({ store_content: false, pii_redaction: { enabled: true, categories: [...all, 'caller_number'] } });
    expect(applyAgentPolicy(ended, both).data).toMatchObject({ caller_number: '**23', topics: ['billing', 'ssn [SSN]'] });
    expect(applyAgentPolicy(ended, both).data).not.toHaveProperty('summary');
  });
});

describe('an event parked while its agent is not known', () => {
  it('is redacted of every detected category, its content and the caller’s number kept', () => {
    expect(parkedForm(transcript).data).toEqual(applyAgentPolicy(transcript, redacting()).data);
    expect(parkedForm(ended).data).toMatchObject({ summary: 'Caller paid with card [CREDIT_CARD] and asked for a call back on [PHONE_NUMBER].', caller_number: '+14155550123', recording_url: 'https://rec.example/1.mp3' });
    expect(parkedForm(started)).toEqual(started);
  });
});
