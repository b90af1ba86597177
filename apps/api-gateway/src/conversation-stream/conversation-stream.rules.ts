/**
 * The rules of GET /v1/conversations/stream that need no I/O: Server-Sent Events framing, the Last-Event-ID
 * a client resumes from, whether the bus still holds what follows it, and which versions a subscriber sees.
 */
import type { ServiceError } from '@voice/contracts';

export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

/** One event as the stream writes it: `id`, `event` and one `data` line per line of the payload, then a blank line. */
export function sseEvent(id: string, event: string, data: string): string {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('');
  return `id: ${oneLine(id)}\nevent: ${oneLine(event)}\n${lines}\n`;
}

/** A comment line (heartbeats, notices): ignored by EventSource, keeps proxies and the client's read timeout from closing an idle stream. */
export function sseComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

/** How long EventSource waits before reconnecting after the stream ends. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.round(ms))}\n\n`;
}

const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * An event's id: the stream's creation time and the change's sequence in it, `<created ms>-<sequence>`. Sequences
 * start again at 1 in a stream created anew (a bus reset, a one-process restart), so the sequence alone could
 * name another event; with the creation time an id from an earlier stream is recognised.
 */
export interface EventPosition {
  createdMs: number;
  sequence: number;
}

export const eventId = (position: EventPosition) => `${position.createdMs}-${position.sequence}`;

/** What Last-Event-ID may look like (also the document's pattern). */
export const EVENT_ID_PATTERN = /^([0-9]{1,16})-([0-9]{1,16})$/;

export type LastEventIdResult = { ok: true; after?: EventPosition } | { ok: false; problem: ServiceError };

/** No header (or an empty one): a new stream, from now on. */
export function parseLastEventId(raw: string | string[] | undefined): LastEventIdResult {
  if (raw === undefined) return { ok: true };
  if (Array.isArray(raw)) return invalidId('Last-Event-ID must be given at most once.');
  const value = raw.trim();
  if (value === '') return { ok: true };
  const match = EVENT_ID_PATTERN.exec(value);
  const [createdMs, sequence] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!Number.isSafeInteger(createdMs) || !Number.isSafeInteger(sequence)) {
    return invalidId('Last-Event-ID must be the id of an event this stream sent, e.g. 1767225600000-1042.');
  }
  return { ok: true, after: { createdMs, sequence } };
}

/**
 * Whether a stream can resume right after event `after` with nothing missing: the bus must still hold every
 * event after it (it keeps CONVERSATION_CHANGES_RETENTION's worth), in the same stream, and must have sent it.
 * Resuming from anything else would silently skip events, so the client is told instead: it reloads the list
 * and opens a new stream without Last-Event-ID.
 */
export function resumeProblem(after: EventPosition, kept: { first: number; last: number; createdMs: number }): ServiceError | undefined {
  const id = eventId(after);
  const gone = `The events after Last-Event-ID ${id} are no longer kept; reload the list and open the stream without Last-Event-ID.`;
  if (after.createdMs !== kept.createdMs) return invalidId(after.createdMs < kept.createdMs ? gone : neverSent(id)).problem;
  if (after.sequence > kept.last) return invalidId(neverSent(id)).problem;
  if (after.sequence < kept.first - 1) return invalidId(gone).problem;
  return undefined;
}

const neverSent = (id: string) => `Last-Event-ID ${id} was never sent by this stream; reload the list and open the stream without it.`;

function invalidId(message: string): { ok: false; problem: ServiceError } {
  return { ok: false, problem: { code: 'invalid_parameter', field: LAST_EVENT_ID_HEADER, message } };
}

/**
 * A subscriber never sees a conversation go back to an older version. Replicas of conversations-service publish
 * each one's versions in commit order, but two replicas recording the same call can publish moments apart in
 * the other order; the older one is then dropped here. Remembers the most recent `capacity` conversations.
 */
export class NewerVersionsOnly {
  private readonly seen = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  /** True when this version is newer than any this subscriber was sent for the conversation (and remembers it). */
  admit(conversationId: string, version: number): boolean {
    const last = this.seen.get(conversationId);
    if (last !== undefined && version <= last) return false;
    // Re-inserted at the end: the map's order is least recently changed first.
    this.seen.delete(conversationId);
    this.seen.set(conversationId, version);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value!);
    return true;
  }
}

/** CONVERSATION_STREAM_HEARTBEAT_MS, CONVERSATION_STREAMS_PER_KEY, CONVERSATION_STREAMS_PER_ACCOUNT. */
export interface ConversationStreamSettings {
  /** A comment line is sent this often on an otherwise idle stream. */
  heartbeatMs: number;
  /** Streams one API key may hold open at once, across every gateway replica. */
  perKey: number;
  /** Streams one account may hold open at once, whatever its keys. */
  perAccount: number;
}

export const DEFAULT_CONVERSATION_STREAM_SETTINGS: ConversationStreamSettings = { heartbeatMs: 15_000, perKey: 5, perAccount: 20 };
