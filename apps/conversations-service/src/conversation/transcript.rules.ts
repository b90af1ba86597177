/**
 * Where a conversation's transcript segments go, as pure functions. Platforms send
 * final transcripts (merged, as they may come in pieces) and live "transcript so far"
 * snapshots (provisional: each one restates what the previous one said, so they
 * replace rather than add up, and any final transcript supersedes them all).
 */
import { timestampEpochNanos, type CallEvent, type TranscriptSegment } from '@voice/contracts';

export type TranscriptEvent = Extract<CallEvent, { type: 'call.transcript' }>;

const NANOS_PER_MS = 1_000_000n;

/** Whole milliseconds from `from` to `to` (RFC 3339 timestamps), rounded down. */
export function millisecondsBetween(from: string, to: string): number {
  const nanos = timestampEpochNanos(to) - timestampEpochNanos(from);
  const ms = nanos / NANOS_PER_MS;
  return Number(nanos < 0n && ms * NANOS_PER_MS !== nanos ? ms - 1n : ms);
}

/**
 * The event's segments on the call's time line. With anchor occurred_at they count from the
 * event's occurred_at, so they move by its distance from the call's start; a position before
 * the start (clocks apart) is put at 0 rather than refused, the text being worth more than the time.
 */
export function placeSegments(event: TranscriptEvent, callStart: string): TranscriptSegment[] {
  const shift = event.data.anchor === 'occurred_at' ? millisecondsBetween(callStart, event.occurred_at) : 0;
  return event.data.segments.map((s) => ({
    speaker: s.speaker,
    text: s.text,
    start_ms: Math.max(0, s.start_ms + shift),
    end_ms: Math.max(0, s.end_ms + shift),
  }));
}

/**
 * The visible transcript of a call from its transcript events, in fold order, placed against
 * the call's start as known at the end of the fold (so the result does not depend on whether
 * the start arrived before or after the transcripts):
 * - the final (non-provisional) segments, merged, as soon as one final transcript with segments
 *   exists — one emptied by the agent's transcription switch supersedes nothing;
 * - otherwise the provisional segments, where a later event's segment replaces an earlier one of
 *   the same speaker starting at the same position (the platform's newer wording of that line).
 */
export function visibleTranscript(events: readonly TranscriptEvent[], callStart: string): TranscriptSegment[] {
  const final = events.filter((e) => e.data.provisional !== true && e.data.segments.length > 0);
  if (final.length > 0) return mergeSegments([], final.flatMap((e) => placeSegments(e, callStart)));
  const provisional = new Map<string, TranscriptSegment>();
  for (const event of events) {
    if (event.data.provisional !== true) continue;
    for (const s of placeSegments(event, callStart)) provisional.set(JSON.stringify([s.speaker, s.start_ms]), s);
  }
  return mergeSegments([], [...provisional.values()]);
}

function segmentKey(s: TranscriptSegment): string {
  return JSON.stringify([s.start_ms, s.end_ms, s.speaker, s.text]);
}

/** Ordered by start_ms (then end_ms, speaker, text, so the order is total), without duplicates. */
export function mergeSegments(existing: readonly TranscriptSegment[], incoming: readonly TranscriptSegment[]): TranscriptSegment[] {
  const byKey = new Map<string, TranscriptSegment>();
  for (const s of [...existing, ...incoming]) {
    const clean = { speaker: s.speaker, text: s.text, start_ms: s.start_ms, end_ms: s.end_ms };
    byKey.set(segmentKey(clean), clean);
  }
  return [...byKey.entries()].sort(([ka, a], [kb, b]) => a.start_ms - b.start_ms || a.end_ms - b.end_ms || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([, s]) => s);
}
