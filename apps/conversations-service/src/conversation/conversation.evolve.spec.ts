import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { CallEvent } from '@voice/contracts';
import { applyAgentPolicy } from './agent-policy.rules.js';
import { compareEvents, evolve, foldConversation, initialState, mergeSegments } from './conversation.evolve.js';

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

  it('terminal states are final: later lifecycle events (by occurred_at) change nothing', () => {
    const base = [started(), ended(60, { sentiment: 'positive' })];
    const final = foldConversation(base)!;
    const after = foldConversation([
      ...base,
      ev('call.progress', 70, { duration: 999, sentiment: 'negative' }),
      ev('call.failed', 71, { failure_reason: 'late' }),
      ev('call.abandoned', 72, { reason: 'busy' }),
      ev('call.started', 73, { caller_number: '+15550000000', start_time: at(73) }),
      ev('call.ended', 74, { end_time: at(74), duration: 1 }),
    ])!;
    expect(after).toEqual(final);
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

  it('ties in occurred_at are broken by event id', () => {
    const a = ev('call.ended', 10, { end_time: at(10), duration: 10, outcome: 'first_by_id' }, 'a');
    const b = ev('call.failed', 10, { failure_reason: 'second_by_id' }, 'b');
    expect(foldConversation([b, a])!.status).toBe('completed');
    expect(foldConversation([a, b])!.status).toBe('completed');
  });

  it('compares occurred_at as instants, not strings', () => {
    const e1 = { ...ended(0), occurred_at: '2025-01-31T15:00:00+02:00' } as CallEvent; // 13:00Z
    const p = { ...ev('call.progress', 0, { sentiment: 'neutral' }), occurred_at: '2025-01-31T14:00:00Z' } as CallEvent;
    expect(foldConversation([e1, p])!.sentiment).toBe(null);
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
    const p = at9('2025-01-31T16:00:00.000000001+02:00', ev('call.progress', 0, { sentiment: 'positive' }, 'a-progress')); // 1 ns after 14:00Z
    const end = at9('2025-01-31T14:00:00Z', ev('call.ended', 0, { end_time: at(0), duration: 5 }, 'b-ended'));
    expect(foldConversation([p, end])!.sentiment).toBeNull();
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
      { numRuns: 300 },
    );
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
      { numRuns: 300 },
    );
  });
});
