import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { CallEvent } from '@voice/contracts';
import { applyAgentPolicy } from './agent-policy.rules.js';
import { compareEvents, evolve, foldConversation, initialState } from './conversation.evolve.js';
import { mergeSegments } from './transcript.rules.js';

let seq = 0;
const at = (second: number) => new Date(Date.UTC(2025, 0, 31, 14, 0, second)).toISOString();
function ev<T extends CallEvent['type']>(type: T, second: number, data: Extract<CallEvent, { type: T }>['data'], id = `e${String(++seq).padStart(4, '0')}`): CallEvent {
  return { id, type, conversation_id: 'c1', agent_id: 'a1', occurred_at: at(second), data } as CallEvent;
}
const started = (s = 0) => ev('call.started', s, { caller_number: '+14155550123', start_time: at(s) });
const ended = (s: number, extra: object = {}) => ev('call.ended', s, { end_time: at(s), duration: s, ...extra });
const seg = (speaker: 'agent' | 'caller', text: string, start_ms: number, end_ms = start_ms + 500) => ({ speaker, text, start_ms, end_ms });

describe('conversation fold', () => {
  it('started → in_progress with duration 0 and nulls/[] for unknown values', () => {
    const s = foldConversation([started()])!;
    expect(s).toMatchObject({ status: 'in_progress', duration: 0, caller_number: '+14155550123', sentiment: null, outcome: null, topics: [], summary: null, recording_url: null, end_time: null });
  });

  it('progress updates the partial data; in_progress duration is the last reported', () => {
    const s = foldConversation([started(), ev('call.progress', 10, { duration: 10, sentiment: 'negative', topics: ['billing'] }), ev('call.progress', 20, { duration: 20 })])!;
    expect(s).toMatchObject({ status: 'in_progress', duration: 20, sentiment: 'negative', topics: ['billing'] });
  });

  it('ended → completed; partial data kept unless the end carries a final value', () => {
    const progress = ev('call.progress', 10, { duration: 10, sentiment: 'negative', topics: ['billing'] });
    const kept = foldConversation([started(), progress, ended(60, { outcome: 'resolved' })])!;
    expect(kept).toMatchObject({ status: 'completed', duration: 60, sentiment: 'negative', topics: ['billing'], outcome: 'resolved', end_time: at(60) });
    const overridden = foldConversation([started(), progress, ended(60, { sentiment: 'positive', topics: ['refund'] })])!;
    expect(overridden).toMatchObject({ sentiment: 'positive', topics: ['refund'] });
  });

  it('failed keeps the failure reason and the duration until failure', () => {
    const s = foldConversation([started(), ev('call.progress', 5, { duration: 5 }), ev('call.failed', 7, { failure_reason: 'sip_503', error: { code: 'sip', message: '503' } })])!;
    expect(s).toMatchObject({ status: 'failed', failure_reason: 'sip_503', duration: 5, errors: [{ code: 'sip', message: '503' }] });
  });

  it('abandoned keeps the reason and has duration 0', () => {
    const s = foldConversation([ev('call.progress', 1, { duration: 3 }), ev('call.abandoned', 2, { reason: 'busy', caller_number: '+442071838750', start_time: at(0) })])!;
    expect(s).toMatchObject({ status: 'abandoned', abandonment_reason: 'busy', duration: 0, caller_number: '+442071838750', start_time: at(0) });
  });

  it('how a call ended is final: later events of another kind change no known fact and no status, they only fill unknown ones', () => {
    const base = [started(), ended(60, { sentiment: 'positive' })];
    const final = foldConversation(base)!;
    const after = foldConversation([
      ...base,
      ev('call.progress', 70, { duration: 999, sentiment: 'negative', topics: ['late'] }),
      ev('call.failed', 71, { failure_reason: 'late', cost: { amount: 9, currency: 'USD' }, end_reason: 'late' }),
      ev('call.abandoned', 72, { reason: 'busy', platform_call_id: 'other' }),
      ev('call.started', 73, { caller_number: '+15550000000', start_time: at(73), platform_call_id: 'another' }),
    ])!;
    expect(after).toEqual({
      ...final, topics: ['late'], cost: { amount: 9, currency: 'USD', breakdown: [] }, end_reason: 'late', platform_call_id: 'other',
    });
    const failed = [started(), ev('call.failed', 5, { failure_reason: 'sip_503', duration: 4 })];
    expect(foldConversation([...failed, ended(9, { summary: 'x', duration: 9 }), ev('call.abandoned', 10, { reason: 'busy' })])).toEqual({
      ...foldConversation(failed), summary: 'x', end_time: at(9),
    });
    const abandoned = [ev('call.abandoned', 5, { reason: 'no_answer' })];
    expect(foldConversation([...abandoned, ended(9, { summary: 'x' }), ev('call.failed', 10, { failure_reason: 'y' })])).toEqual({
      ...foldConversation(abandoned), summary: 'x', end_time: at(9),
    });
  });

  it('an event after the end (or at its instant) fills the facts still unknown without changing the status', () => {
    const s = foldConversation([
      ev('call.failed', 30, { failure_reason: 'error_asr', end_time: at(30) }),
      ev('call.started', 31, { caller_number: '+14155550123', start_time: at(0), platform_call_id: 'pa-9' }),
      ev('call.progress', 32, { duration: 30, sentiment: 'negative', topics: ['billing'] }),
    ])!;
    expect(s).toMatchObject({
      status: 'failed', failure_reason: 'error_asr', caller_number: '+14155550123', start_time: at(0), platform_call_id: 'pa-9',
      duration: 30, sentiment: 'negative', topics: ['billing'], end_time: at(30),
    });
    // Known facts stay; an abandoned call keeps no call time.
    const abandoned = foldConversation([ev('call.abandoned', 5, { reason: 'busy', start_time: at(1) }), ev('call.started', 6, { start_time: at(6) }), ev('call.progress', 7, { duration: 9 })])!;
    expect(abandoned).toMatchObject({ status: 'abandoned', start_time: at(1), duration: 0 });
  });

  it('the end of a call carries its caller and start: a call whose start never arrived still has them', () => {
    const s = foldConversation([ev('call.failed', 30, { failure_reason: 'error_asr', caller_number: '+14155550123', start_time: at(0), end_time: at(30), duration: 30 })])!;
    expect(s).toMatchObject({ status: 'failed', caller_number: '+14155550123', start_time: at(0), end_time: at(30), duration: 30 });
    const ended_ = foldConversation([ev('call.ended', 60, { end_time: at(60), caller_number: '+14155550123', start_time: at(2) })])!;
    expect(ended_).toMatchObject({ status: 'completed', caller_number: '+14155550123', start_time: at(2) });
    // The start an end message states replaces a start event's; a withheld caller does not forget a known one.
    const both = foldConversation([started(1), ev('call.ended', 60, { end_time: at(60), start_time: at(0) })])!;
    expect(both).toMatchObject({ caller_number: '+14155550123', start_time: at(0) });
  });

  it('an event that occurred before the terminal one still counts, even if it arrives later', () => {
    const s = foldConversation([ended(60), ev('call.progress', 30, { topics: ['late arrival'] }), started()])!;
    expect(s).toMatchObject({ status: 'completed', topics: ['late arrival'], caller_number: '+14155550123' });
  });

  it('transcript segments are always kept (also after the end), ordered by start_ms, without duplicates', () => {
    const s = foldConversation([
      started(),
      ev('call.transcript', 5, { segments: [seg('caller', 'second', 2000), seg('agent', 'first', 0)] }),
      ended(60),
      ev('call.transcript', 90, { segments: [seg('agent', 'first', 0), seg('agent', 'third', 4000)] }),
    ])!;
    expect(s.transcript.map((x) => x.text)).toEqual(['first', 'second', 'third']);
  });

  it('events at one instant go by their place in a call\'s life (started, progress, transcript, end), never by id', () => {
    const end = ev('call.ended', 10, { end_time: at(10), summary: 'Done.' }, 'a-ended');
    const transcript = ev('call.transcript', 10, { segments: [seg('agent', 'Hi', 0)] }, 'b-transcript');
    const progress = ev('call.progress', 10, { duration: 7, sentiment: 'neutral' }, 'c-progress');
    const start = ev('call.started', 10, { caller_number: '+14155550123', start_time: at(3) }, 'd-started');
    const order = [start, progress, transcript, end];
    expect([end, transcript, progress, start].sort((x, y) => compareEvents(x, y))).toEqual(order);
    expect([progress, end, start, transcript].sort((x, y) => compareEvents(x, y))).toEqual(order);
    // A later start event would have replaced the start time (and the progress the duration), not filled it.
    const state = foldConversation([end, transcript, progress, start])!;
    expect(state).toMatchObject({ status: 'completed', caller_number: '+14155550123', start_time: at(3), duration: 7 });
  });

  it('ties between ends of a call are broken by event id, only for a total order', () => {
    const a = ev('call.ended', 10, { end_time: at(10), duration: 10, outcome: 'first_by_id' }, 'a');
    const b = ev('call.failed', 10, { failure_reason: 'second_by_id' }, 'b');
    expect(foldConversation([b, a])!.status).toBe('completed');
    expect(foldConversation([a, b])!.status).toBe('completed');
  });

  it('compares occurred_at as instants, not strings', () => {
    const e1 = { ...ended(0), occurred_at: '2025-01-31T15:00:00+02:00' } as CallEvent; // 13:00Z
    const f = { ...ev('call.failed', 0, { failure_reason: 'later' }), occurred_at: '2025-01-31T14:00:00Z' } as CallEvent;
    expect(foldConversation([f, e1])!.status).toBe('completed');
  });
});

describe('sub-millisecond order', () => {
  const at9 = (occurred_at: string, e: CallEvent) => ({ ...e, occurred_at }) as CallEvent;

  it('orders events below the millisecond by their exact instant, not by id', () => {
    // Date.parse sees 14:00:00.000 twice; the ids alone would put the failure first.
    const end = at9('2025-01-31T14:00:00.0001Z', ev('call.ended', 0, { end_time: at(0), duration: 5 }, 'b-ended'));
    const fail = at9('2025-01-31T14:00:00.0009Z', ev('call.failed', 0, { failure_reason: 'late' }, 'a-failed'));
    expect(foldConversation([fail, end])!.status).toBe('completed');
    expect(foldConversation([end, fail])!.status).toBe('completed');
    const failFirst = at9('2025-01-31T14:00:00.000099999Z', ev('call.failed', 0, { failure_reason: 'first' }, 'z-failed'));
    expect(foldConversation([end, failFirst])!).toMatchObject({ status: 'failed', failure_reason: 'first' });
  });

  it('compares nanoseconds across offsets', () => {
    const p = at9('2025-01-31T16:00:00.000000001+02:00', ev('call.failed', 0, { failure_reason: 'later' }, 'a-failed')); // 1 ns after 14:00Z
    const end = at9('2025-01-31T14:00:00Z', ev('call.ended', 0, { end_time: at(0), duration: 5 }, 'b-ended'));
    expect(foldConversation([p, end])!.status).toBe('completed');
    expect(compareEvents(end, p)).toBe(-1);
    expect(compareEvents(p, end)).toBe(1);
  });

  it('any permutation of events that differ by nanoseconds, written with any offset, folds in instant order', () => {
    const offsets = ['Z', '+00:00', '-00:00', '+05:30', '-08:00', '+14:00', '-11:59'];
    const write = (nanos: number, offset: string) => {
      const minutes = offset === 'Z' ? 0 : (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
      const local = new Date(Date.UTC(2025, 0, 31, 14, 0, 0) + minutes * 60_000).toISOString().slice(0, 19);
      return `${local}.${String(nanos).padStart(9, '0')}${offset}`;
    };
    const kinds = [
      (id: string) => ev('call.ended', 0, { end_time: at(0), duration: 9, outcome: id.replace(/[^a-z0-9]/g, '_') }, id),
      (id: string) => ev('call.failed', 0, { failure_reason: id }, id),
      (id: string) => ev('call.progress', 0, { sentiment: 'negative', duration: 3 }, id),
      (id: string) => ev('call.abandoned', 0, { reason: 'busy' }, id),
    ];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ n: fc.integer({ min: 0, max: 2_000 }), k: fc.nat(kinds.length - 1), o: fc.constantFrom(...offsets) }), { minLength: 2, maxLength: 8, selector: (x) => x.n })
          .chain((specs) => fc.tuple(fc.constant(specs), fc.shuffledSubarray(specs, { minLength: specs.length, maxLength: specs.length }))),
        ([specs, shuffled]) => {
          // Ids in the reverse of time order: any tie-break by id instead of by instant shows.
          const toEvent = (x: (typeof specs)[number]) => at9(write(x.n, x.o), kinds[x.k](`e${String(10_000 - x.n).padStart(5, '0')}`));
          const byInstant = [...specs].sort((a, b) => a.n - b.n).map(toEvent);
          let expected: ReturnType<typeof foldConversation>;
          for (const e of byInstant) expected = evolve(expected ?? initialState(e), e);
          expect(foldConversation(shuffled.map(toEvent))).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('refining the end of a call', () => {
  const cost = (amount: number) => ({ amount, currency: 'USD' as const, breakdown: [{ component: 'llm', amount }] });

  it('a later call.ended refines a completed call: each field it carries replaces, absent ones stay', () => {
    const s = foldConversation([
      started(),
      ev('call.progress', 30, { duration: 30 }),
      ev('call.ended', 60, { end_time: at(60), end_reason: 'customer-ended-call', platform_call_id: 'pa-1' }),
      ended(75, { duration: 58, summary: 'Booked.', cost: cost(0.25), latency: [{ component: 'llm', p50_ms: 400 }], sentiment: 'positive' }),
    ])!;
    expect(s).toMatchObject({
      status: 'completed', end_time: at(75), duration: 58, summary: 'Booked.', sentiment: 'positive', end_reason: 'customer-ended-call',
      platform_call_id: 'pa-1', cost: { amount: 0.25, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.25 }] },
      latency: [{ component: 'llm', p50_ms: 400 }],
    });
    // A third report that carries only a new cost changes only the cost.
    const again = foldConversation([started(), ended(60, { summary: 'Booked.', end_reason: 'hangup' }), ended(80, { cost: cost(0.3) })])!;
    expect(again).toMatchObject({ summary: 'Booked.', end_reason: 'hangup', cost: { amount: 0.3 }, duration: 80 });
  });

  it('call.ended without a duration keeps the last one reported until a report brings it', () => {
    const early = foldConversation([started(), ev('call.progress', 20, { duration: 20 }), ev('call.ended', 60, { end_time: at(60) })])!;
    expect(early).toMatchObject({ status: 'completed', duration: 20 });
    const reported = foldConversation([started(), ev('call.progress', 20, { duration: 20 }), ev('call.ended', 60, { end_time: at(60) }), ended(61, { duration: 59 })])!;
    expect(reported.duration).toBe(59);
  });

  it('a later call.failed refines a failed call; a later call.abandoned an abandoned one (with its end time)', () => {
    const failed = foldConversation([
      started(),
      ev('call.failed', 5, { failure_reason: 'sip_503', error: { code: 'sip', message: '503' } }),
      ev('call.failed', 6, { failure_reason: 'sip_503_after_retry', duration: 4, end_reason: 'twilio-failed', cost: cost(0.01), error: { code: 'sip', message: '503' } }),
    ])!;
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'sip_503_after_retry', duration: 4, end_reason: 'twilio-failed', cost: { amount: 0.01 }, errors: [{ code: 'sip', message: '503' }] });
    const abandoned = foldConversation([
      ev('call.abandoned', 5, { reason: 'no_answer', start_time: at(0) }),
      ev('call.abandoned', 9, { reason: 'caller_hangup', end_time: at(8), caller_number: '+442071838750', platform_call_id: 'pb-7', latency: [{ component: 'turn' }] }),
    ])!;
    expect(abandoned).toMatchObject({
      status: 'abandoned', abandonment_reason: 'caller_hangup', start_time: at(0), end_time: at(8), caller_number: '+442071838750', platform_call_id: 'pb-7',
      latency: [{ component: 'turn' }], duration: 0,
    });
  });

  it('errors are a union: a repeated report does not double them, new ones are added in order', () => {
    const e1 = { code: 'jitter', message: 'brief', occurred_at: at(3) };
    const e2 = { code: 'asr_timeout', message: 'slow' };
    const s = foldConversation([started(), ended(60, { errors: [e1, e2] }), ended(70, { errors: [e2, e1, { code: 'tts', message: 'late' }] }), ended(71, { errors: [e1] })])!;
    expect(s.errors).toEqual([e1, e2, { code: 'tts', message: 'late' }]);
    // The same error with its keys in another order (as jsonb returns them) is the same error.
    const reordered = { occurred_at: at(3), message: 'brief', code: 'jitter' };
    expect(foldConversation([started(), ended(60, { errors: [e1] }), ended(61, { errors: [reordered] })])!.errors).toEqual([e1]);
    const failed = foldConversation([started(), ev('call.failed', 5, { failure_reason: 'x', error: e2 }), ev('call.failed', 6, { failure_reason: 'x', error: e2 })])!;
    expect(failed.errors).toEqual([e2]);
  });

  it('the end of a call that arrives first and its refinement that arrives last fold as if in order', () => {
    const events = [started(), ev('call.ended', 60, { end_time: at(60) }), ended(61, { duration: 60, cost: cost(1) })];
    expect(foldConversation([events[2], events[0], events[1]])).toEqual(foldConversation(events));
  });
});

describe('platform details of a call', () => {
  it('a call that failed or was abandoned keeps the recording and analysis its end carries', () => {
    const s = foldConversation([
      started(),
      ev('call.failed', 40, { failure_reason: 'pipeline-error-openai-llm-failed', recording_url: 'https://r.example/f.mp3', summary: 'LLM failed mid-call.', sentiment: 'negative', topics: ['billing', 'Billing'] }),
    ])!;
    expect(s).toMatchObject({ status: 'failed', recording_url: 'https://r.example/f.mp3', summary: 'LLM failed mid-call.', sentiment: 'negative', topics: ['billing'] });
  });


  it('call.started without a caller number leaves it null, and may carry the platform call id', () => {
    const s = foldConversation([ev('call.started', 0, { start_time: at(0), platform_call_id: 'pa-42' })])!;
    expect(s).toMatchObject({ caller_number: null, platform_call_id: 'pa-42', start_time: at(0) });
    // A withheld number on a second start does not forget one already known.
    expect(foldConversation([started(0), ev('call.started', 1, { start_time: at(0) })])!.caller_number).toBe('+14155550123');
  });

  it('the end carries the platform call id, end reason, cost and latency; unknown they are null and []', () => {
    expect(foldConversation([started()])).toMatchObject({ platform_call_id: null, end_reason: null, cost: null, latency: [] });
    const s = foldConversation([ev('call.started', 0, { start_time: at(0), platform_call_id: 'pa-1' }), ended(60, { platform_call_id: 'pa-1-final', cost: { amount: 0.5, currency: 'USD' } })])!;
    expect(s).toMatchObject({ platform_call_id: 'pa-1-final', cost: { amount: 0.5, currency: 'USD', breakdown: [] } });
  });
});

describe('transcripts: final and provisional', () => {
  const tr = (second: number, segments: ReturnType<typeof seg>[], extra: { provisional?: boolean; anchor?: 'call_start' | 'occurred_at' } = {}) =>
    ev('call.transcript', second, { segments, ...extra });

  it('provisional segments show until a final transcript arrives, which supersedes them all', () => {
    const live = [started(), tr(5, [seg('agent', 'Hel', 0)], { provisional: true }), tr(8, [seg('agent', 'Hello there', 0, 900), seg('caller', 'Hi', 1000)], { provisional: true })];
    expect(foldConversation(live)!.transcript).toEqual([seg('agent', 'Hello there', 0, 900), seg('caller', 'Hi', 1000)]);
    const done = foldConversation([...live, tr(70, [seg('agent', 'Hello there.', 0, 950)]), ended(60)])!;
    expect(done.transcript).toEqual([seg('agent', 'Hello there.', 0, 950)]);
    // Also when the final one occurred before the provisional ones.
    expect(foldConversation([tr(1, [seg('agent', 'final', 0)]), ...live])!.transcript).toEqual([seg('agent', 'final', 0)]);
  });

  it('a later provisional segment replaces the one of the same speaker starting at the same position; others stay', () => {
    const s = foldConversation([
      started(),
      tr(9, [seg('agent', 'newer', 0), seg('caller', 'second line', 2000)], { provisional: true }),
      tr(5, [seg('agent', 'older', 0), seg('caller', 'same start, other speaker', 0), seg('agent', 'kept', 4000)], { provisional: true }),
    ])!;
    expect(s.transcript).toEqual([seg('agent', 'newer', 0), seg('caller', 'same start, other speaker', 0), seg('caller', 'second line', 2000), seg('agent', 'kept', 4000)]);
  });

  it('anchor occurred_at places segments from the event time, against the start known at the end of the fold, clamped at 0', () => {
    const live = tr(12, [seg('caller', 'I need a table', 0, 1500)], { provisional: true, anchor: 'occurred_at' });
    // The start arrives after the transcript (in arrival order and by occurred_at): the segment still lands 12 s in.
    expect(foldConversation([live, started(0)])!.transcript).toEqual([seg('caller', 'I need a table', 12_000, 13_500)]);
    expect(foldConversation([started(0), live])!.transcript).toEqual([seg('caller', 'I need a table', 12_000, 13_500)]);
    // Without any start time the first event's time is the start.
    expect(foldConversation([ev('call.progress', 2, {}), live])!.transcript).toEqual([seg('caller', 'I need a table', 10_000, 11_500)]);
    // A start reported after the event (clocks apart) puts it at 0, never below.
    const lateStart = ev('call.started', 1, { start_time: at(20) });
    expect(foldConversation([lateStart, live])!.transcript).toEqual([seg('caller', 'I need a table', 0, 0)]);
    // Final transcripts may be anchored too; call_start (the default) is as written.
    expect(foldConversation([started(0), tr(3, [seg('agent', 'hi', 100)], { anchor: 'occurred_at' }), tr(4, [seg('agent', 'yes', 100)], { anchor: 'call_start' })])!.transcript)
      .toEqual([seg('agent', 'yes', 100), seg('agent', 'hi', 3100)]);
  });

  it('has_transcript-relevant: final transcripts still merge as before and no segment shows twice', () => {
    const s = foldConversation([
      started(),
      tr(5, [seg('agent', 'a', 0)], { provisional: true }),
      tr(6, [seg('agent', 'a', 0), seg('caller', 'b', 600)], { provisional: false }),
      tr(90, [seg('agent', 'a', 0), seg('agent', 'c', 1200)]),
    ])!;
    expect(s.transcript).toEqual([seg('agent', 'a', 0), seg('caller', 'b', 600), seg('agent', 'c', 1200)]);
  });

  it('a final transcript emptied by the agent policy supersedes nothing', () => {
    const emptied = applyAgentPolicy(tr(9, [seg('agent', 'final', 0)]), { recording_enabled: true, transcription_enabled: false });
    expect(foldConversation([started(), tr(5, [seg('agent', 'live', 0)], { provisional: true }), emptied])!.transcript).toEqual([seg('agent', 'live', 0)]);
  });
});

describe('agent policy', () => {
  it('drops the recording URL when recording is off and the transcript when transcription is off', () => {
    const end = ended(60, { recording_url: 'https://r.example/x.mp3' });
    const tr = ev('call.transcript', 5, { segments: [seg('agent', 'hi', 0)] });
    const off = { recording_enabled: false, transcription_enabled: false };
    const s = foldConversation([started(), tr, end].map((e) => applyAgentPolicy(e, off)))!;
    expect(s.recording_url).toBeNull();
    expect(s.transcript).toEqual([]);
    const on = foldConversation([started(), tr, end].map((e) => applyAgentPolicy(e, { recording_enabled: true, transcription_enabled: true })))!;
    expect(on.recording_url).toBe('https://r.example/x.mp3');
    expect(on.transcript).toHaveLength(1);
  });

  it('drops the recording URL of a call that failed or was abandoned too', () => {
    const off = { recording_enabled: false, transcription_enabled: false };
    const failed = ev('call.failed', 30, { failure_reason: 'error_asr', recording_url: 'https://r.example/f.mp3', summary: 'Cut off.' });
    const abandoned = ev('call.abandoned', 30, { reason: 'caller_hangup', recording_url: 'https://r.example/a.mp3' });
    expect(foldConversation([applyAgentPolicy(failed, off)])).toMatchObject({ recording_url: null, summary: 'Cut off.' });
    expect(foldConversation([applyAgentPolicy(abandoned, off)])).toMatchObject({ recording_url: null });
    expect(foldConversation([failed])).toMatchObject({ status: 'failed', recording_url: 'https://r.example/f.mp3', summary: 'Cut off.' });
  });
});

describe('mergeSegments', () => {
  it('is idempotent and order-independent', () => {
    const a = [seg('agent', 'x', 10), seg('caller', 'y', 5)];
    expect(mergeSegments(mergeSegments([], a), a)).toEqual(mergeSegments([], [...a].reverse()));
  });
});

describe('convergence (property)', () => {
  const second = fc.integer({ min: 0, max: 120 });
  const anyEvent = fc.oneof(
    second.map((s) => started(s)),
    fc.record({ s: second, d: fc.option(fc.nat(600), { nil: undefined }), m: fc.option(fc.constantFrom('positive', 'neutral', 'negative' as const), { nil: undefined }), t: fc.option(fc.array(fc.constantFrom('billing', 'refund', 'Billing'), { maxLength: 3 }), { nil: undefined }) })
      .map(({ s, d, m, t }) => ev('call.progress', s, { ...(d !== undefined ? { duration: d } : {}), ...(m ? { sentiment: m } : {}), ...(t ? { topics: t } : {}) })),
    fc.record({ s: second, segs: fc.array(fc.record({ sp: fc.constantFrom('agent', 'caller' as const), tx: fc.constantFrom('hi', 'yes', 'no'), st: fc.nat(5000) }), { minLength: 1, maxLength: 3 }) })
      .map(({ s, segs }) => ev('call.transcript', s, { segments: segs.map((x) => seg(x.sp, x.tx, x.st)) })),
    fc.record({ s: second, o: fc.constantFrom('resolved', 'transferred') }).map(({ s, o }) => ended(s, { outcome: o })),
    second.map((s) => ev('call.failed', s, { failure_reason: 'network' })),
    fc.record({ s: second, r: fc.constantFrom('busy', 'no_answer', 'caller_hangup' as const) }).map(({ s, r }) => ev('call.abandoned', s, { reason: r })),
    // What platforms' webhooks bring: withheld callers, live and anchored transcripts, ends refined by later reports.
    fc.record({ s: second, p: fc.option(fc.constantFrom('pa-1', 'pa-2'), { nil: undefined }) })
      .map(({ s, p }) => ev('call.started', s, { start_time: at(s), ...(p ? { platform_call_id: p } : {}) })),
    fc.record({
      s: second, provisional: fc.option(fc.boolean(), { nil: undefined }), anchor: fc.option(fc.constantFrom('call_start', 'occurred_at' as const), { nil: undefined }),
      segs: fc.array(fc.record({ sp: fc.constantFrom('agent', 'caller' as const), tx: fc.constantFrom('hi', 'hi there', 'no'), st: fc.constantFrom(0, 500, 1000) }), { minLength: 1, maxLength: 3 }),
    }).map(({ s, provisional, anchor, segs }) => ev('call.transcript', s, {
      segments: segs.map((x) => seg(x.sp, x.tx, x.st)), ...(provisional !== undefined ? { provisional } : {}), ...(anchor ? { anchor } : {}),
    })),
    fc.record({
      s: second, d: fc.option(fc.nat(600), { nil: undefined }), c: fc.option(fc.constantFrom(0, 0.25, 1.5), { nil: undefined }),
      r: fc.option(fc.constantFrom('hangup', 'silence'), { nil: undefined }), e: fc.subarray([{ code: 'a', message: 'x' }, { code: 'b', message: 'y' }]),
    }).map(({ s, d, c, r, e }) => ev('call.ended', s, {
      end_time: at(s), ...(d !== undefined ? { duration: d } : {}), ...(c !== undefined ? { cost: { amount: c, currency: 'USD' } } : {}),
      ...(r ? { end_reason: r } : {}), ...(e.length ? { errors: e } : {}), latency: [{ component: 'llm', p50_ms: s }],
    })),
    fc.record({ s: second, r: fc.constantFrom('a', 'b'), c: fc.constantFrom(0.1, 0.2) })
      .map(({ s, r, c }) => ev('call.failed', s, { failure_reason: r, end_reason: r, cost: { amount: c, currency: 'USD' }, error: { code: r, message: 'm' } })),
    fc.record({ s: second, e: fc.option(second, { nil: undefined }) })
      .map(({ s, e }) => ev('call.abandoned', s, { reason: 'busy', ...(e !== undefined ? { end_time: at(e) } : {}), platform_call_id: `pb-${s}` })),
  );

  it('any permutation of the same events, with duplicates, folds to the same record', () => {
    fc.assert(
      fc.property(
        fc.array(anyEvent, { minLength: 1, maxLength: 12 }).chain((events) =>
          fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), fc.array(fc.constantFrom(...events), { maxLength: 5 })),
        ),
        ([events, shuffled, duplicates]) => {
          const reference = foldConversation(events);
          const permuted = foldConversation([...duplicates, ...shuffled, ...duplicates]);
          expect(permuted).toEqual(reference);
        },
      ),
      { numRuns: 500 },
    );
  });
});
