/** Putting mapped events on the wire: naming our agent, and keeping every message under a size limit. */
import { Buffer } from 'node:buffer';
import type { CallEvent, CallEventType, TranscriptSegment } from '@voice/contracts';
import { charCount } from '@voice/contracts';
import { MAX_SEGMENTS_PER_EVENT } from './event-builders.js';
import type { UnattributedCallEvent } from './types.js';
import { sha256Hex } from './values.js';

/** The events as our agent's: agent_id is set (in the contract's field order) on each. */
export function attributeToAgent(events: readonly UnattributedCallEvent[], agentId: string): CallEvent[] {
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    conversation_id: event.conversation_id,
    agent_id: agentId,
    occurred_at: event.occurred_at,
    data: event.data,
  }) as CallEvent);
}

/** Size of an event on the wire: its JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * Split every event whose JSON (UTF-8 bytes) exceeds maxBytes (transcript events: by segments) into parts
 * with deterministic ids `<id>:p<i>`; every part ≤ maxBytes, same type/occurred_at/provisional flags.
 *
 * - A transcript's parts hold consecutive runs of its segments (and never more than 5000): the union of
 *   their segments is the event's. Transcripts are unions (final) or keyed by speaker and start
 *   (provisional), so the parts together say what the event said.
 * - Any other event's parts each carry its required fields and some of its optional ones: later events of
 *   the same terminal type refine the record field by field, so together they say what the event said.
 * - When `<id>:p<i>` would pass 128 characters, the parts are `h-<sha256 of the id, 40 hex>:p<i>`.
 * - Events that fit are returned as they are. A single segment (or field) too large for maxBytes on its
 *   own is a RangeError: no split can carry it.
 */
export function splitForTransport(events: readonly CallEvent[], maxBytes: number): CallEvent[] {
  if (!Number.isFinite(maxBytes) || maxBytes <= 0) throw new RangeError(`maxBytes must be a positive number, not ${maxBytes}`);
  return events.flatMap((event) => {
    if (jsonBytes(event) <= maxBytes) return [event];
    return event.type === 'call.transcript' ? splitTranscript(event, maxBytes) : splitFields(event, maxBytes);
  });
}

type TranscriptEvent = Extract<CallEvent, { type: 'call.transcript' }>;

function partIds(id: string, maxParts: number): (i: number) => string {
  const base = charCount(`${id}:p${maxParts}`) <= 128 ? id : `h-${sha256Hex(id).slice(0, 40)}`;
  return (i) => `${base}:p${i}`;
}

function splitTranscript(event: TranscriptEvent, maxBytes: number): CallEvent[] {
  const segments = event.data.segments;
  const idOf = partIds(event.id, segments.length);
  const partOf = (i: number, part: TranscriptSegment[]): TranscriptEvent => ({ ...event, id: idOf(i), data: { ...event.data, segments: part } });
  const sizes = segments.map((segment) => jsonBytes(segment));
  const parts: CallEvent[] = [];
  let next = 0;
  while (next < segments.length) {
    const i = parts.length;
    const overhead = jsonBytes(partOf(i, []));
    let bytes = overhead;
    let end = next;
    while (end < segments.length && end - next < MAX_SEGMENTS_PER_EVENT) {
      const added = sizes[end] + (end > next ? 1 : 0); // a comma between segments
      if (bytes + added > maxBytes) break;
      bytes += added;
      end += 1;
    }
    if (end === next) throw new RangeError(`segment ${next} of event ${event.id} does not fit in ${maxBytes} bytes on its own`);
    parts.push(partOf(i, segments.slice(next, end)));
    next = end;
  }
  return parts;
}

/** Fields every event of a type carries, so that each part is a valid event of that type. */
const REQUIRED_DATA: Record<CallEventType, readonly string[]> = {
  'call.started': ['start_time'],
  'call.progress': [],
  'call.transcript': ['segments'],
  'call.ended': ['end_time'],
  'call.failed': ['failure_reason'],
  'call.abandoned': ['reason'],
};

function splitFields(event: CallEvent, maxBytes: number): CallEvent[] {
  const data = event.data as unknown as Record<string, unknown>;
  const required = REQUIRED_DATA[event.type];
  const requiredData = Object.fromEntries(Object.entries(data).filter(([key]) => required.includes(key)));
  const optional = Object.entries(data).filter(([key]) => !required.includes(key));
  const idOf = partIds(event.id, optional.length);
  const partOf = (i: number, fields: Array<[string, unknown]>) => ({ ...event, id: idOf(i), data: { ...requiredData, ...Object.fromEntries(fields) } }) as CallEvent;
  const parts: CallEvent[] = [];
  let fields: Array<[string, unknown]> = [];
  for (const field of optional) {
    if (jsonBytes(partOf(parts.length, [...fields, field])) <= maxBytes) {
      fields.push(field);
      continue;
    }
    if (fields.length === 0) throw new RangeError(`data.${field[0]} of event ${event.id} does not fit in ${maxBytes} bytes on its own`);
    parts.push(partOf(parts.length, fields));
    fields = [field];
    if (jsonBytes(partOf(parts.length, fields)) > maxBytes) throw new RangeError(`data.${field[0]} of event ${event.id} does not fit in ${maxBytes} bytes on its own`);
  }
  if (fields.length > 0 || parts.length === 0) parts.push(partOf(parts.length, fields));
  if (jsonBytes(parts[0]) > maxBytes) throw new RangeError(`the required fields of event ${event.id} do not fit in ${maxBytes} bytes`);
  return parts;
}
