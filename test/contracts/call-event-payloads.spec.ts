import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findCallEventProblem, isCallEventTimestamp, timestampEpochNanos } from '../../libs/contracts/src/call-event-payloads.js';

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
    delete (d.data as Partial<typeof d.data>).start_time;
    expect(findCallEventProblem(d, 'events[3]')).toMatchObject({ code: 'missing_required_field', field: 'events[3].data.start_time' });
  });

  it('accepts a call started without a caller number (withheld), but not a null one', () => {
    const d = started();
    delete (d.data as Partial<typeof d.data>).caller_number;
    expect(findCallEventProblem(d)).toBeUndefined();
    expect(findCallEventProblem({ ...d, data: { ...d.data, caller_number: null } })).toMatchObject({ field: 'data.caller_number' });
  });

  it('checks the end details every way a call ends may carry, naming the nested field', () => {
    const end = (type: string, data: object) => ({ id: 'e1', type, conversation_id: 'c1', agent_id: 'a1', occurred_at: '2025-01-31T14:05:00Z', data });
    const ended = (extra: object) => end('call.ended', { end_time: '2025-01-31T14:10:00Z', ...extra });
    expect(findCallEventProblem(ended({}))).toBeUndefined();
    expect(findCallEventProblem(ended({ cost: { amount: 0.25, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.2 }] }, latency: [{ component: 'llm', p50_ms: 300 }] }))).toBeUndefined();
    expect(findCallEventProblem(ended({ cost: { amount: 1, currency: 'EUR' } }))).toMatchObject({ field: 'data.cost.currency', valid_values: ['USD'] });
    expect(findCallEventProblem(ended({ cost: { amount: 1 } }))).toMatchObject({ code: 'missing_required_field', field: 'data.cost.currency' });
    expect(findCallEventProblem(ended({ cost: { amount: -0.01, currency: 'USD' } }))).toMatchObject({ field: 'data.cost.amount' });
    expect(findCallEventProblem(ended({ cost: { amount: '1', currency: 'USD' } }))).toMatchObject({ field: 'data.cost.amount' });
    expect(findCallEventProblem(ended({ cost: { amount: 1, currency: 'USD', breakdown: [{ component: 'llm', amount: -1 }] } }))).toMatchObject({ field: 'data.cost.breakdown[0].amount' });
    const many = Array.from({ length: 21 }, (_, i) => ({ component: `c${i}`, amount: 0 }));
    expect(findCallEventProblem(ended({ cost: { amount: 1, currency: 'USD', breakdown: many } }))).toMatchObject({ field: 'data.cost.breakdown' });
    expect(findCallEventProblem(ended({ latency: [{ component: 'tts', p99_ms: -5 }] }))).toMatchObject({ field: 'data.latency[0].p99_ms' });
    expect(findCallEventProblem(ended({ latency: [{ p50_ms: 5 }] }))).toMatchObject({ field: 'data.latency[0].component' });
    expect(findCallEventProblem(ended({ end_reason: ' ' }))).toMatchObject({ field: 'data.end_reason' });
    expect(findCallEventProblem(ended({ platform_call_id: 'x'.repeat(201) }))).toMatchObject({ field: 'data.platform_call_id' });
    expect(findCallEventProblem(end('call.failed', { failure_reason: 'sip', cost: { amount: 0, currency: 'USD' }, end_reason: 'sip-503' }))).toBeUndefined();
    expect(findCallEventProblem(end('call.abandoned', { reason: 'busy', end_time: '2025-01-31T14:06:00Z', latency: [] }))).toBeUndefined();
    expect(findCallEventProblem(end('call.abandoned', { reason: 'busy', end_time: 'soon' }))).toMatchObject({ field: 'data.end_time' });
    expect(findCallEventProblem(end('call.progress', { cost: { amount: 0, currency: 'USD' } }))).toMatchObject({ field: 'data.cost' });
  });

  it('reads provisional and anchor of a transcript strictly', () => {
    const tr = (extra: object) => ({ id: 'e1', type: 'call.transcript', conversation_id: 'c1', agent_id: 'a1', occurred_at: '2025-01-31T14:05:00Z',
      data: { segments: [{ speaker: 'agent', text: 'Hi', start_ms: 0, end_ms: 1 }], ...extra } });
    expect(findCallEventProblem(tr({ provisional: true, anchor: 'occurred_at' }))).toBeUndefined();
    expect(findCallEventProblem(tr({ provisional: 'true' }))).toMatchObject({ field: 'data.provisional' });
    expect(findCallEventProblem(tr({ anchor: 'wall_clock' }))).toMatchObject({ field: 'data.anchor', valid_values: ['call_start', 'occurred_at'] });
  });

  it('refuses prototype keys, which class-transformer would silently drop, by their path', () => {
    const e = JSON.parse(`{"id":"e1","type":"call.started","conversation_id":"c1","agent_id":"a1","occurred_at":"2025-01-31T14:05:00Z",
      "data":{"caller_number":"+14155550123","start_time":"2025-01-31T14:05:00Z","__proto__":{"polluted":true}}}`);
    expect(findCallEventProblem(e, 'events[2]')).toMatchObject({ code: 'invalid_parameter', field: 'events[2].data.__proto__' });
  });

  it('names a field of the wrong type as such, not a reserved key inside its value', () => {
    const e = JSON.parse(`{"id":"e1","type":"call.started","conversation_id":"c1","agent_id":"a1","occurred_at":"2025-01-31T14:05:00Z",
      "data":{"caller_number":{"prototype":false},"start_time":"2025-01-31T14:05:00Z"}}`);
    expect(findCallEventProblem(e, 'events[2]')).toMatchObject({ field: 'events[2].data.caller_number' });
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

  it('refuses timestamps outside years 0001–9999 (as written or in UTC) and leap seconds', () => {
    for (const bad of ['0000-01-01T00:00:00Z', '0000-12-31T23:00:00-02:00', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59-10:00', '2016-12-31T23:59:60Z', '+010000-01-01T00:00:00Z', '9999-12-31T23:59:59.9999995Z']) {
      expect({ bad, problem: findCallEventProblem({ ...started(), occurred_at: bad }) }).toMatchObject({ bad, problem: { code: 'invalid_parameter', field: 'occurred_at' } });
    }
    for (const good of ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00-01:00', '0099-03-01T00:00:00Z', '9999-12-31T23:59:59.999999Z', '9999-12-31T12:00:00+12:00']) {
      expect(isCallEventTimestamp(good)).toBe(true);
    }
  });

  it('refuses a control character (C0, DEL, C1) in the event id, which is part of the Nats-Msg-Id header', () => {
    // CR or LF there would make every publish fail: a 400 instead of a 503 the platform retries forever.
    for (const id of ['evt-1\r\n', 'evt\r', 'evt\nX: y', 'a\tb', '\u0001evt', 'evt\u001F', 'evt\u007F', 'evt\u0080', 'evt\u0085', 'evt\u009F']) {
      expect({ id, problem: findCallEventProblem({ ...started(), id }, 'events[0]') })
        .toMatchObject({ id, problem: { code: 'invalid_parameter', field: 'events[0].id' } });
    }
    for (const id of ['evt 1', 'évt-\u00A0-😀', 'a~b']) expect(findCallEventProblem({ ...started(), id })).toBeUndefined();
  });

  it('refuses U+0000 and unpaired surrogates in every string, naming the field; keeps well-formed pairs', () => {
    const ended = (d: object) => ({ ...started(), type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', duration: 10, ...d } });
    expect(findCallEventProblem({ ...started(), id: 'evt\u0000' }, 'events[1]')).toMatchObject({ code: 'invalid_parameter', field: 'events[1].id' });
    expect(findCallEventProblem({ ...started(), agent_id: 'agt_\uD800' })).toMatchObject({ field: 'agent_id' });
    expect(findCallEventProblem(ended({ summary: 'a\uDC00b' }))).toMatchObject({ field: 'data.summary' });
    expect(findCallEventProblem(ended({ keywords: ['ok', 'x\u0000'] }))).toMatchObject({ field: 'data.keywords' });
    expect(findCallEventProblem(ended({ recording_url: 'https://rec.example.com/\u0000' }))).toMatchObject({ field: 'data.recording_url' });
    expect(findCallEventProblem(ended({ errors: [{ code: 'c', message: 'm\u0000' }] }))).toMatchObject({ field: 'data.errors[0].message' });
    expect(findCallEventProblem(ended({ integrations: [{ system: 's', action: 'a', details: { a: [{ b: '\uD83D' }] } }] })))
      .toMatchObject({ field: 'data.integrations[0].details' });
    expect(findCallEventProblem(ended({ integrations: [{ system: 's', action: 'a', details: { 'k\u0000': 1 } }] })))
      .toMatchObject({ field: 'data.integrations[0].details' });
    expect(findCallEventProblem({ ...started(), type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: '\u0000', start_ms: 0, end_ms: 1 }] } }))
      .toMatchObject({ field: 'data.segments[0].text' });
    expect(findCallEventProblem(ended({ summary: 'Booked 😀 \uD83D\uDE00', integrations: [{ system: 's', action: 'a', details: { '😀': 'ü' } }] }))).toBeUndefined();
  });

  it('refuses a list item that is not an object (an empty array once slipped through)', () => {
    for (const item of [[], [{}], 'x', null]) {
      expect(findCallEventProblem({ ...started(), type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'x', start_ms: 0, end_ms: 1 }, item] } }))
        .toMatchObject({ code: 'invalid_parameter', field: 'data.segments' });
    }
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

describe('findCallEventProblem states the first problem in the words of its schema keyword', () => {
  const ended = (d: object) => ({ ...started(), type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', ...d } });
  const transcript = (segment: object) => ({ ...started(), type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'hi', start_ms: 10, end_ms: 20, ...segment }] } });
  const problem = (code: string, field: string, message: string, extra: object = {}) => ({ code, field, message, ...extra });
  const cases: [string, unknown, string, object][] = [
    ['a missing envelope field', { ...started(), agent_id: undefined }, '', problem('missing_required_field', 'agent_id', 'agent_id is required.')],
    ['a required field sent as null', { ...started(), data: { start_time: null } }, '', problem('invalid_parameter', 'data.start_time', 'data.start_time is required.')],
    ['an unknown type', { ...started(), type: 'call.exploded' }, 'events[1]', problem('invalid_parameter', 'events[1].type',
      'events[1].type must be one of: call.started, call.progress, call.transcript, call.ended, call.failed, call.abandoned.',
      { valid_values: ['call.started', 'call.progress', 'call.transcript', 'call.ended', 'call.failed', 'call.abandoned'] })],
    ['an id that is not a string', { ...started(), id: 5 }, '', problem('invalid_parameter', 'id', 'id must be a string.')],
    ['a control character in the id', { ...started(), id: 'evt\r\n' }, '', problem('invalid_parameter', 'id', 'id must not contain control characters (U+0000 to U+001F, U+007F to U+009F).')],
    ['a caller that is not E.164', { ...started(), data: { caller_number: 415, start_time: '2025-01-31T14:05:00Z' } }, 'events[2]',
      problem('invalid_parameter', 'events[2].data.caller_number', 'events[2].data.caller_number must be an E.164 phone number, e.g. +14155550123.')],
    ['a blank summary', ended({ summary: '  ' }), '', problem('invalid_parameter', 'data.summary', 'data.summary must not be blank.')],
    ['an unstorable URL, before its format', ended({ recording_url: 'ftp://x\u0000' }), '', problem('invalid_parameter', 'data.recording_url',
      'data.recording_url contains a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate).')],
    ['a list item that is not a string', ended({ topics: ['ok', 1] }), '', problem('invalid_parameter', 'data.topics', 'data.topics must contain only strings.')],
    ['an empty list item', ended({ keywords: [''] }), '', problem('invalid_parameter', 'data.keywords', 'each item of keywords must be 1 to 100 characters long.')],
    ['a score below its minimum', ended({ satisfaction: { score: 0 } }), '', problem('invalid_parameter', 'data.satisfaction.score', 'data.satisfaction.score must be at least 1.')],
    ['a score that is not an integer', ended({ satisfaction: { score: 'five' } }), '', problem('invalid_parameter', 'data.satisfaction.score', 'data.satisfaction.score must be an integer.')],
    ['a MOS that is not a number', ended({ quality: { mos: 'good' } }), '', problem('invalid_parameter', 'data.quality.mos', 'data.quality.mos must be a finite number.')],
    ['a negative jitter', ended({ quality: { jitter_ms: -1 } }), '', problem('invalid_parameter', 'data.quality.jitter_ms', 'data.quality.jitter_ms must not be negative.')],
    ['a packet loss above 100 %', ended({ quality: { packet_loss_pct: 101 } }), '', problem('invalid_parameter', 'data.quality.packet_loss_pct', 'data.quality.packet_loss_pct must be at most 100.')],
    ['an unknown field, before the other problems of its object', ended({ cost: { amount: -1, colour: 'red' } }), '',
      problem('invalid_parameter', 'data.cost.colour', 'data.cost.colour is not a recognised field.')],
    ['a list of objects holding something else', ended({ follow_up_tasks: ['call back'] }), '', problem('invalid_parameter', 'data.follow_up_tasks', 'each item of follow_up_tasks must be an object.')],
    ['a segment ending before it starts', transcript({ end_ms: 5 }), '', problem('invalid_parameter', 'data.segments[0].end_ms', 'data.segments[0].end_ms must not be less than start_ms.')],
    ['a fractional offset', transcript({ start_ms: 1.5 }), '', problem('invalid_parameter', 'data.segments[0].start_ms', 'data.segments[0].start_ms must be an integer.')],
    ['an impossible date', { ...started(), occurred_at: '2025-02-30T10:00:00Z' }, '', problem('invalid_parameter', 'occurred_at',
      'occurred_at must be an ISO 8601 timestamp with a time zone in the years 0001 to 9999, e.g. 2025-01-31T14:05:00Z.')],
  ];
  it.each(cases)('%s', (_name, event, prefix, expected) => {
    const defined = JSON.parse(JSON.stringify(event));
    expect(findCallEventProblem(defined, prefix)).toEqual(expected);
  });
});

describe('timestampEpochNanos', () => {
  it('keeps every fractional digit and applies the offset', () => {
    expect(timestampEpochNanos('1970-01-01T00:00:00Z')).toBe(0n);
    expect(timestampEpochNanos('1970-01-01T00:00:00.000000001Z')).toBe(1n);
    expect(timestampEpochNanos('2025-01-31T14:00:00.0009Z') - timestampEpochNanos('2025-01-31T14:00:00.0001Z')).toBe(800_000n);
    expect(timestampEpochNanos('2025-01-31T16:00:00.5+02:00')).toBe(timestampEpochNanos('2025-01-31T14:00:00.500Z'));
    expect(timestampEpochNanos('1969-12-31T23:59:59.999999999Z')).toBe(-1n);
    expect(timestampEpochNanos('0001-01-01T00:00:00Z')).toBe(BigInt(Date.parse('0001-01-01T00:00:00Z')) * 1_000_000n);
  });

  it('agrees with Date.parse to the millisecond on any valid timestamp', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    const timestamp = fc.record({
      y: fc.integer({ min: 1, max: 9999 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }),
      h: fc.integer({ min: 0, max: 23 }), mi: fc.integer({ min: 0, max: 59 }), s: fc.integer({ min: 0, max: 59 }),
      f: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
      o: fc.constantFrom('Z', '+00:00', '-00:00', '+01:00', '-05:30', '+14:00', '-12:00', '+23:59'),
    }).map(({ y, mo, d, h, mi, s, f, o }) => `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}${f ? `.${f}` : ''}${o}`);
    fc.assert(
      fc.property(timestamp, (t) => {
        const nanos = timestampEpochNanos(t);
        const floorMs = nanos >= 0n ? nanos / 1_000_000n : -((-nanos + 999_999n) / 1_000_000n);
        expect({ t, ms: Number(floorMs) }).toEqual({ t, ms: Date.parse(t) });
      }),
      { numRuns: 1000 },
    );
  });
});
