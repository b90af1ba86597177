import { findCallEventProblem, isPlainObject, MAX_CALL_EVENTS_PER_BATCH, type CallEvent, type ServiceError } from '@voice/contracts';

export interface IndexedEvent {
  event: CallEvent;
  /** Field path prefix naming the event in errors: `events[3]` in a batch, `` for a single event. */
  path: string;
}

export type ParsedCallEvents = { ok: true; events: IndexedEvent[] } | { ok: false; problem: ServiceError };

export function fieldOf(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

/**
 * Accepts one event or `{ events: [...] }` (1..500) and checks every event,
 * reporting the first bad one by index, so an invalid batch is rejected whole
 * before anything is published.
 */
export function parseCallEvents(body: unknown): ParsedCallEvents {
  if (!isPlainObject(body)) {
    return { ok: false, problem: { code: 'invalid_request', message: 'The request body must be a JSON object: one call event, or { "events": [ ... ] }.' } };
  }
  if (!('events' in body)) {
    const problem = findCallEventProblem(body, '');
    return problem ? { ok: false, problem } : { ok: true, events: [{ event: body as unknown as CallEvent, path: '' }] };
  }
  const extra = Object.keys(body).find((key) => key !== 'events');
  if (extra !== undefined) {
    return { ok: false, problem: { code: 'invalid_parameter', field: extra, message: `${extra} is not a recognised field of a batch; send { "events": [ ... ] }.` } };
  }
  const { events } = body;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_CALL_EVENTS_PER_BATCH) {
    return {
      ok: false,
      problem: { code: 'invalid_parameter', field: 'events', message: `events must be an array of 1 to ${MAX_CALL_EVENTS_PER_BATCH} call events.` },
    };
  }
  const parsed: IndexedEvent[] = [];
  for (const [index, event] of events.entries()) {
    const path = `events[${index}]`;
    const problem = findCallEventProblem(event, path);
    if (problem) return { ok: false, problem };
    parsed.push({ event: event as CallEvent, path });
  }
  return { ok: true, events: parsed };
}
