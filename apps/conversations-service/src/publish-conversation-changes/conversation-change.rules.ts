/** What may be published of a read-model change, and under which de-duplication id. Pure. */
import { endedDetailForEvent, type ConversationChange, type ConversationDetail } from '@voice/contracts';

/**
 * The most a change message may weigh (JSON bytes): half of NATS's default max_payload (1 MiB), leaving room
 * for headers. A list item is far smaller by the call-event schema's own limits (summary ≤ 10,000 characters,
 * ≤ 50 topics of ≤ 100): this bound is a guard, never a truncation.
 */
export const MAX_CHANGE_BYTES = 512 * 1024;

/** Account ids become a subject token: one that could break out of it (`.`, wildcards, spaces) is never published. */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/** Why the change must not go on the bus, or undefined when it may. */
export function changeMustFitTheBus(change: ConversationChange, serialized: string): string | undefined {
  if (!SUBJECT_TOKEN.test(change.account_id)) return 'the account id cannot be a subject token';
  const bytes = Buffer.byteLength(serialized, 'utf8');
  if (bytes > MAX_CHANGE_BYTES) return `the change is ${bytes} bytes, over the ${MAX_CHANGE_BYTES} a message may carry`;
  return undefined;
}

/**
 * De-duplication id: one per conversation version, so a batch published again after a crash (before the
 * checkpoint moved) never shows subscribers the same version twice within the bus's window.
 */
export function changeMessageId(change: ConversationChange): string {
  return `${change.account_id}:${change.conversation.id}:${change.version}`;
}


/** A recorded change (the outbox row) as the bus carries it: timestamps in the one form every view uses. */
export function changeOf(recorded: {
  account_id: string; version: number; created: boolean; item: Record<string, unknown>;
}): ConversationChange {
  const item = recorded.item as unknown as ConversationChange['conversation'];
  const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    type: recorded.created ? 'conversation.created' : 'conversation.updated',
    account_id: recorded.account_id,
    version: recorded.version,
    conversation: { ...item, start_time: iso(item.start_time)!, end_time: iso(item.end_time), created_at: iso(item.created_at)! },
  };
}

/** Whether a change shows the call over: it then carries the call's full record (ended_detail) for the outbound events. */
export function showsTheCallOver(change: ConversationChange): boolean {
  return change.conversation.status !== 'in_progress';
}

/** The change with the call's full record when it shows the call over (its transcript left out past an event's limit). */
export function withEndedDetail(change: ConversationChange, detail: ConversationDetail | undefined): ConversationChange {
  if (!detail || !showsTheCallOver(change)) return change;
  return { ...change, ended_detail: endedDetailForEvent(detail) };
}

/**
 * The change as it goes on the bus and its JSON, or why it cannot: a record too big even without its transcript is
 * left out rather than the change (the change is what the live stream and the events need).
 */
export function changeForTheBus(change: ConversationChange): { change: ConversationChange; payload: string; detailLeftOut: boolean } | { refusal: string } {
  const payload = JSON.stringify(change);
  const refusal = changeMustFitTheBus(change, payload);
  if (!refusal) return { change, payload, detailLeftOut: false };
  if (change.ended_detail === undefined) return { refusal };
  const { ended_detail: _leftOut, ...bare } = change;
  const barePayload = JSON.stringify(bare);
  const bareRefusal = changeMustFitTheBus(bare, barePayload);
  return bareRefusal ? { refusal: bareRefusal } : { change: bare, payload: barePayload, detailLeftOut: true };
}
