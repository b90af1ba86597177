/** What may be published of a read-model change, and under which de-duplication id. Pure. */
import type { ConversationChange } from '@voice/contracts';

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
 * De-duplication id: one per conversation version, so a batch recorded again after a crash (redelivered
 * before its acknowledgement) never shows subscribers the same version twice within the bus's window.
 */
export function changeMessageId(change: ConversationChange): string {
  return `${change.account_id}:${change.conversation.id}:${change.version}`;
}

/** Waits before the attempts of a publish that failed: three attempts in all, then the change is given up (logged). */
export const PUBLISH_RETRY_DELAYS_MS = [100, 500] as const;
