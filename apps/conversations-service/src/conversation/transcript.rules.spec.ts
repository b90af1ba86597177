import { describe, expect, it } from '@jest/globals';
import { millisecondsBetween, placeSegments, visibleTranscript, type TranscriptEvent } from './transcript.rules.js';

const event = (occurred_at: string, data: Partial<TranscriptEvent['data']>, id = 'e1'): TranscriptEvent => ({
  id, type: 'call.transcript', conversation_id: 'c1', agent_id: 'a1', occurred_at,
  data: { segments: [{ speaker: 'agent', text: 'hi', start_ms: 100, end_ms: 600 }], ...data },
});

describe('millisecondsBetween', () => {
  it('counts whole milliseconds across offsets, rounding down (also below zero)', () => {
    expect(millisecondsBetween('2025-01-31T14:00:00Z', '2025-01-31T16:00:01.5+02:00')).toBe(1500);
    expect(millisecondsBetween('2025-01-31T14:00:00Z', '2025-01-31T14:00:00.000999999Z')).toBe(0);
    expect(millisecondsBetween('2025-01-31T14:00:00.0005Z', '2025-01-31T14:00:00Z')).toBe(-1);
    expect(millisecondsBetween('2025-01-31T14:00:01Z', '2025-01-31T14:00:00Z')).toBe(-1000);
  });
});

describe('placeSegments', () => {
  it('leaves call_start segments as written and shifts occurred_at ones by the event’s distance from the start', () => {
    expect(placeSegments(event('2025-01-31T14:00:05Z', {}), '2025-01-31T14:00:00Z')).toEqual([{ speaker: 'agent', text: 'hi', start_ms: 100, end_ms: 600 }]);
    expect(placeSegments(event('2025-01-31T14:00:05Z', { anchor: 'occurred_at' }), '2025-01-31T14:00:00Z'))
      .toEqual([{ speaker: 'agent', text: 'hi', start_ms: 5100, end_ms: 5600 }]);
    // Before the start: clamped at 0, each end on its own (never before its start).
    expect(placeSegments(event('2025-01-31T13:59:59.7Z', { anchor: 'occurred_at' }), '2025-01-31T14:00:00Z'))
      .toEqual([{ speaker: 'agent', text: 'hi', start_ms: 0, end_ms: 300 }]);
  });
});

describe('visibleTranscript', () => {
  it('is empty without transcripts, and ignores the order of final ones', () => {
    expect(visibleTranscript([], '2025-01-31T14:00:00Z')).toEqual([]);
    const a = event('2025-01-31T14:00:01Z', { segments: [{ speaker: 'caller', text: 'b', start_ms: 900, end_ms: 1000 }] }, 'a');
    const b = event('2025-01-31T14:00:02Z', {}, 'b');
    expect(visibleTranscript([a, b], '2025-01-31T14:00:00Z')).toEqual(visibleTranscript([b, a], '2025-01-31T14:00:00Z'));
  });
});
