import { describe, expect, it } from '@jest/globals';
import { findCallEventProblem, isCallEventTimestamp } from '../../libs/contracts/src/call-event-payloads.js';

const started = () => ({
  id: 'evt-1',
  type: 'call.started',
  conversation_id: 'conv-1',
  agent_id: 'agt_1',
  occurred_at: '2025-01-31T14:05:00Z',
  data: { caller_number: '+14155550123', start_time: '2025-01-31T14:05:00Z' },
});

describe('findCallEventProblem', () => {
  it('accepts a valid event of every type', () => {
    const base = started();
    const samples = [
      base,
      { ...base, type: 'call.progress', data: { duration: 30, sentiment: 'neutral', topics: ['billing'] } },
      { ...base, type: 'call.progress', data: {} },
      { ...base, type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'Hello', start_ms: 0, end_ms: 900 }] } },
      {
        ...base,
        type: 'call.ended',
        data: {
          end_time: '2025-01-31T14:10:00.123+01:00', duration: 300, summary: 'Booked.', sentiment: 'positive', outcome: 'appointment_booked',
          topics: ['booking'], recording_url: 'https://rec.example.com/a.mp3', language: 'en', intent: 'book_appointment',
          satisfaction: { score: 5, indicators: ['thanked agent'] }, keywords: ['dentist'], actions_taken: ['booked slot'],
          follow_up_tasks: [{ description: 'Send reminder', due_at: '2025-02-01T09:00:00Z' }],
          integrations: [{ system: 'salesforce', action: 'crm_updated', reference: 'SF-1', details: { any: ['thing'] } }],
          quality: { mos: 4.2, jitter_ms: 3, packet_loss_pct: 0.1, latency_ms: 120 }, network: { codec: 'opus' },
          errors: [{ code: 'asr_timeout', message: 'ASR slow' }],
        },
      },
      { ...base, type: 'call.failed', data: { failure_reason: 'sip_503', duration: 4, error: { code: 'sip', message: '503' } } },
      { ...base, type: 'call.abandoned', data: { reason: 'no_answer' } },
    ];
    for (const sample of samples) expect(findCallEventProblem(sample)).toBeUndefined();
  });

  it('names the missing field', () => {
    const e = started() as Record<string, unknown>;
    delete e.agent_id;
    expect(findCallEventProblem(e)).toMatchObject({ code: 'missing_required_field', field: 'agent_id' });
    const d = started();
    delete (d.data as Partial<typeof d.data>).caller_number;
    expect(findCallEventProblem(d, 'events[3]')).toMatchObject({ code: 'missing_required_field', field: 'events[3].data.caller_number' });
  });

  it('refuses prototype keys, which class-transformer would silently drop, by their path', () => {
    const e = JSON.parse(`{"id":"e1","type":"call.started","conversation_id":"c1","agent_id":"a1","occurred_at":"2025-01-31T14:05:00Z",
      "data":{"caller_number":"+14155550123","start_time":"2025-01-31T14:05:00Z","__proto__":{"polluted":true}}}`);
    expect(findCallEventProblem(e, 'events[2]')).toMatchObject({ code: 'invalid_parameter', field: 'events[2].data.__proto__' });
  });

  it('rejects a bad E.164 caller with the indexed path', () => {
    const e = started();
    e.data.caller_number = '4155550123';
    expect(findCallEventProblem(e, 'events[3]')).toMatchObject({ code: 'invalid_parameter', field: 'events[3].data.caller_number' });
  });

  it('lists valid values for an unknown type, speaker, sentiment and reason', () => {
    expect(findCallEventProblem({ ...started(), type: 'call.exploded' })).toMatchObject({
      code: 'invalid_parameter', field: 'type',
      valid_values: ['call.started', 'call.progress', 'call.transcript', 'call.ended', 'call.failed', 'call.abandoned'],
    });
    expect(findCallEventProblem({ ...started(), type: 'call.transcript', data: { segments: [{ speaker: 'bot', text: 'x', start_ms: 0, end_ms: 1 }] } }))
      .toMatchObject({ field: 'data.segments[0].speaker', valid_values: ['agent', 'caller'] });
    expect(findCallEventProblem({ ...started(), type: 'call.progress', data: { sentiment: 'angry' } }))
      .toMatchObject({ field: 'data.sentiment', valid_values: ['positive', 'neutral', 'negative'] });
    expect(findCallEventProblem({ ...started(), type: 'call.abandoned', data: { reason: 'bored' } }))
      .toMatchObject({ field: 'data.reason', valid_values: ['busy', 'no_answer', 'caller_hangup'] });
  });

  it('rejects non-ISO timestamps and impossible dates', () => {
    for (const bad of ['yesterday', '2025-01-31', '2025-01-31 14:05:00Z', '2025-02-30T10:00:00Z', '2025-01-31T24:00:00Z', '1738332300']) {
      expect(findCallEventProblem({ ...started(), occurred_at: bad })).toMatchObject({ code: 'invalid_parameter', field: 'occurred_at' });
    }
    expect(isCallEventTimestamp('2024-02-29T23:59:59.999-05:30')).toBe(true);
  });

  it('checks segments: end before start, empty text, negative or fractional offsets', () => {
    const seg = (s: object) => ({ ...started(), type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'hi', start_ms: 10, end_ms: 20, ...s }] } });
    expect(findCallEventProblem(seg({ end_ms: 5 }))).toMatchObject({ field: 'data.segments[0].end_ms' });
    expect(findCallEventProblem(seg({ text: '  ' }))).toMatchObject({ field: 'data.segments[0].text' });
    expect(findCallEventProblem(seg({ start_ms: -1 }))).toMatchObject({ field: 'data.segments[0].start_ms' });
    expect(findCallEventProblem(seg({ start_ms: 1.5 }))).toMatchObject({ field: 'data.segments[0].start_ms' });
    expect(findCallEventProblem({ ...started(), type: 'call.transcript', data: { segments: [] } })).toMatchObject({ field: 'data.segments' });
  });

  it('rejects bad conversation ids, outcome labels, durations, unknown fields and nulls', () => {
    expect(findCallEventProblem({ ...started(), conversation_id: 'has space' })).toMatchObject({ field: 'conversation_id' });
    expect(findCallEventProblem({ ...started(), conversation_id: 'x'.repeat(129) })).toMatchObject({ field: 'conversation_id' });
    const ended = (d: object) => ({ ...started(), type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', duration: 10, ...d } });
    expect(findCallEventProblem(ended({ outcome: 'Appointment Booked' }))).toMatchObject({ field: 'data.outcome' });
    expect(findCallEventProblem(ended({ duration: -3 }))).toMatchObject({ field: 'data.duration' });
    expect(findCallEventProblem(ended({ sentiment: null }))).toMatchObject({ field: 'data.sentiment' });
    expect(findCallEventProblem(ended({ colour: 'red' }))).toMatchObject({ code: 'invalid_parameter', field: 'data.colour' });
    expect(findCallEventProblem({ ...started(), extra: 1 })).toMatchObject({ field: 'extra' });
    expect(findCallEventProblem({ ...started(), data: 'x' })).toMatchObject({ field: 'data' });
    expect(findCallEventProblem('nope', 'events[0]')).toMatchObject({ field: 'events[0]' });
  });
});
