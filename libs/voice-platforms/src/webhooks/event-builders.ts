/** Building blocks both platforms' mappings share: transcript segments and events, the end of a call. */
import type { CallCost, CallEndDetails, LatencyFigures, Sentiment, Speaker, TranscriptSegment } from '@voice/contracts';
import { MAX_INT32 } from '@voice/contracts';
import { outcomeOfReason, type EndClass, type EndReasonTable } from './end-reasons.js';
import { boundedText, cutChars, snakeLabel, storable, shortHash } from './values.js';
import type { UnattributedCallEvent } from './types.js';

/** Longest segment text the contract accepts (characters). */
export const MAX_SEGMENT_CHARS = 10_000;
/** Most segments one call.transcript event may hold. */
export const MAX_SEGMENTS_PER_EVENT = 5000;

/**
 * One utterance as segments: text made storable and, when longer than the contract allows, cut into
 * pieces of at most 10,000 characters (at a space when there is one in the last tenth of the piece),
 * all with the same times. Blank text gives no segment.
 */
export function segmentsOf(speaker: Speaker, text: string, startMs: number, endMs: number): TranscriptSegment[] {
  const clean = storable(text);
  if (!/\S/.test(clean)) return [];
  const pieces: string[] = [];
  let rest = clean;
  while (rest !== '') {
    let piece = cutChars(rest, MAX_SEGMENT_CHARS);
    if (piece.length < rest.length) {
      const space = piece.lastIndexOf(' ');
      if (space > piece.length * 0.9) piece = piece.slice(0, space + 1);
    }
    pieces.push(piece);
    rest = rest.slice(piece.length);
  }
  return pieces.filter((p) => /\S/.test(p)).map((piece) => ({ speaker, text: piece, start_ms: startMs, end_ms: Math.max(endMs, startMs) }));
}

/**
 * Provisional segments are keyed by (speaker, start): two in one event with the same key would replace
 * each other. Each later one moves a millisecond on until its key is free (the pieces of a long
 * utterance, wordless utterances placed at the same point); the final transcript supersedes them anyway.
 */
export function withDistinctStarts(segments: readonly TranscriptSegment[]): TranscriptSegment[] {
  const used = new Set<string>();
  return segments.map((segment) => {
    let start = segment.start_ms;
    while (used.has(`${segment.speaker}:${start}`) && start < MAX_INT32) start += 1;
    used.add(`${segment.speaker}:${start}`);
    return start === segment.start_ms ? segment : { ...segment, start_ms: start, end_ms: Math.max(segment.end_ms, start) };
  });
}

export interface TranscriptEventOptions {
  /** `<pa|pb>:<call>` */
  prefix: string;
  conversationId: string;
  occurredAt: string;
  /** What tells this transcript apart from the call's others; a hash of the content is appended. */
  label: string;
  provisional: boolean;
  anchor?: 'occurred_at';
}

/**
 * A call.transcript event (none without segments), in parts `<id>:p<i>` of at most 5000 segments.
 * The id ends with a hash of the content, so equal content gives an equal id whichever webhook
 * carried it, and different content never shares an id.
 */
export function transcriptEvents(segments: readonly TranscriptSegment[], options: TranscriptEventOptions): UnattributedCallEvent[] {
  if (segments.length === 0) return [];
  const final = options.provisional ? withDistinctStarts(segments) : [...segments];
  const flags = { ...(options.provisional ? { provisional: true } : {}), ...(options.anchor ? { anchor: options.anchor } : {}) };
  const id = `${options.prefix}:call.transcript:${options.label}-${shortHash(JSON.stringify([options.occurredAt, flags, final]))}`;
  const event = (eventId: string, part: TranscriptSegment[]): UnattributedCallEvent => ({
    id: eventId,
    type: 'call.transcript',
    conversation_id: options.conversationId,
    occurred_at: options.occurredAt,
    data: { segments: part, ...flags },
  });
  if (final.length <= MAX_SEGMENTS_PER_EVENT) return [event(id, final)];
  const parts: UnattributedCallEvent[] = [];
  for (let i = 0; i * MAX_SEGMENTS_PER_EVENT < final.length; i += 1) {
    parts.push(event(`${id}:p${i}`, final.slice(i * MAX_SEGMENTS_PER_EVENT, (i + 1) * MAX_SEGMENTS_PER_EVENT)));
  }
  return parts;
}

/** What the end of a call carries, whatever our status for it. */
export interface CallEnd {
  class: EndClass;
  endTime?: string;
  startTime?: string;
  /** Seconds. */
  duration?: number;
  callerNumber?: string;
  rawReason?: string;
  details: CallEndDetails;
  /** A call that failed after it connected may have been recorded and analysed too. */
  recordingUrl?: string;
  summary?: string;
  sentiment?: Sentiment;
  /** Only completed calls (call.ended) carry it. */
  outcome?: string;
  topics?: string[];
}

/** The terminal event for a call's end: call.ended, call.failed or call.abandoned, by its class. */
export function terminalEvent(end: CallEnd, id: string, conversationId: string, occurredAt: string): UnattributedCallEvent {
  const details: CallEndDetails = {
    ...end.details,
    ...(end.rawReason !== undefined ? { end_reason: boundedText(end.rawReason, 200) } : {}),
  };
  if (details.end_reason === undefined) delete details.end_reason;
  // Whatever the class: the start of the call may never have been delivered (platforms retry only a few
  // times), and then the end is the only message that tells who called and when.
  const callFacts = {
    ...(end.callerNumber !== undefined ? { caller_number: end.callerNumber } : {}),
    ...(end.startTime !== undefined ? { start_time: end.startTime } : {}),
  };
  // What the call yielded, whatever the class (a call that failed mid-way was recorded and analysed too).
  const yielded = {
    ...(end.recordingUrl !== undefined ? { recording_url: end.recordingUrl } : {}),
    ...(end.summary !== undefined ? { summary: end.summary } : {}),
    ...(end.sentiment !== undefined ? { sentiment: end.sentiment } : {}),
    ...(end.topics !== undefined ? { topics: end.topics } : {}),
  };
  const base = (type: CallEnd['class']['type']) => ({ id, type, conversation_id: conversationId, occurred_at: occurredAt });
  const cls = end.class;
  if (cls.type === 'call.abandoned') {
    return {
      ...base('call.abandoned'),
      type: 'call.abandoned',
      data: {
        reason: cls.reason,
        ...callFacts,
        ...(end.endTime !== undefined ? { end_time: end.endTime } : {}),
        ...details,
        ...yielded,
      },
    };
  }
  if (cls.type === 'call.failed') {
    return {
      ...base('call.failed'),
      type: 'call.failed',
      data: {
        failure_reason: boundedText(cls.failure_reason, 500) ?? 'unknown',
        ...callFacts,
        ...(end.endTime !== undefined ? { end_time: end.endTime } : {}),
        ...(end.duration !== undefined ? { duration: end.duration } : {}),
        ...details,
        ...yielded,
      },
    };
  }
  if (end.endTime === undefined) throw new RangeError('a completed call needs its end time');
  return {
    ...base('call.ended'),
    type: 'call.ended',
    data: {
      end_time: end.endTime,
      ...(end.duration !== undefined ? { duration: end.duration } : {}),
      ...callFacts,
      ...details,
      ...(end.recordingUrl !== undefined ? { recording_url: end.recordingUrl } : {}),
      ...(end.summary !== undefined ? { summary: end.summary } : {}),
      ...(end.sentiment !== undefined ? { sentiment: end.sentiment } : {}),
      ...(end.outcome !== undefined ? { outcome: end.outcome } : {}),
      ...(end.topics !== undefined ? { topics: end.topics } : {}),
    },
  };
}

/** Seconds from milliseconds, rounded, as the contract's integer. */
export function secondsOf(ms: number): number {
  return Math.min(Math.max(Math.round(ms / 1000), 0), MAX_INT32);
}

/** A cost in USD; undefined without a usable amount. At most 20 breakdown components, named 1..50 characters. */
export function costOf(amount: number | undefined, breakdown: ReadonlyArray<{ component: string; amount: number | undefined }>): CallCost | undefined {
  if (amount === undefined) return undefined;
  const parts = breakdown
    .map((part) => ({ component: boundedText(part.component.trim(), 50), amount: part.amount }))
    .filter((part): part is { component: string; amount: number } => part.component !== undefined && part.amount !== undefined)
    .slice(0, 20);
  return { amount, currency: 'USD', ...(parts.length > 0 ? { breakdown: parts } : {}) };
}

/** Latency figures with at least one number, components named 1..50 characters, at most 20. */
export function latencyOf(figures: readonly LatencyFigures[]): LatencyFigures[] | undefined {
  const kept = figures
    .map((f) => ({ ...f, component: boundedText(f.component.trim(), 50) ?? '' }))
    .filter((f) => f.component !== '' && Object.keys(f).length > 1)
    .slice(0, 20);
  return kept.length > 0 ? kept : undefined;
}

/**
 * A completed call's outcome: the analysis' own label (as snake_case) when it gives a usable one; else
 * what the end reason says (`transferred`, `voicemail`); else `resolved`/`unresolved` from the verdict.
 */
export function outcomeOf(label: unknown, endReasons: EndReasonTable, reason: string | undefined, successful: boolean | undefined): string | undefined {
  return snakeLabel(label) ?? outcomeOfReason(endReasons, reason) ?? (successful === undefined ? undefined : successful ? 'resolved' : 'unresolved');
}
