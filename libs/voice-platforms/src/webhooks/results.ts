import type { UnattributedCallEvent, WebhookMapping } from './types.js';
import { storable } from './values.js';

/** Who and what a webhook is about, as far as the body tells. */
export interface WebhookSubject {
  eventType: string | null;
  platformAgentId: string | null;
  platformCallId: string | null;
}

export function ignored(reason: string, subject: WebhookSubject): WebhookMapping {
  return {
    result: 'ignored',
    reason,
    // Read from a body that may not be the platform's at all: made storable (U+0000, lone surrogates → U+FFFD).
    event_type: storableOrNull(subject.eventType),
    platform_agent_id: storableOrNull(subject.platformAgentId),
    platform_call_id: storableOrNull(subject.platformCallId),
  };
}

function storableOrNull(value: string | null): string | null {
  return value === null ? null : storable(value);
}

export function mapped(
  subject: { eventType: string; platformAgentId: string; platformCallId: string },
  conversationId: string,
  events: UnattributedCallEvent[],
): WebhookMapping {
  return {
    result: 'mapped',
    event_type: subject.eventType,
    platform_agent_id: subject.platformAgentId,
    platform_call_id: subject.platformCallId,
    conversation_id: conversationId,
    events,
  };
}

/** The object without its undefined properties (so that events deep-equal and serialise the same). */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
