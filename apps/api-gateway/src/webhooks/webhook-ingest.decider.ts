/**
 * What a verified webhook delivery means, decided without I/O once the handler has read the body (the
 * platform's mapping, @voice/voice-platforms) and looked up which of the account's agents the platform names:
 * the call events it becomes (attributed, split for the bus, each checked against the call-event contract) or
 * why it records none. Also what a refused signature answers, and what makes a redelivery a duplicate.
 */
import { createHash } from 'node:crypto';
import { findCallEventProblem, type CallEvent, type ErrorCode, type VoicePlatform, type WebhookDeliveryOutcome } from '@voice/contracts';
import { attributeToAgent, splitForTransport, type WebhookMapping, type WebhookVerdict } from '@voice/voice-platforms';

/**
 * Largest call event put on the bus. NATS carries 1 MiB per message with its headers; a transcript
 * bigger than this travels as several transcript events of the same call (their segments unite).
 */
export const MAX_CALL_EVENT_BYTES = 512 * 1024;

/** What the delivery log records of a delivery, and the call events to queue when it is accepted. */
export interface Interpretation {
  outcome: WebhookDeliveryOutcome;
  reason: string | null;
  eventType: string | null;
  platformCallId: string | null;
  platformAgentId: string | null;
  conversationId: string | null;
  events: CallEvent[];
}

/** The delivery's body as read: not JSON (why), or what the platform's mapping made of it. */
export type DeliveryBody = { unreadable: string } | { mapping: WebhookMapping };

const NOTHING = { eventType: null, platformCallId: null, platformAgentId: null, conversationId: null, events: [] };

/**
 * What the delivery records, given its body as read and the account's agent its platform agent is linked to
 * (undefined: none yet, or none asked for): accepted with its call events, or ignored / failed with the reason
 * the log shows.
 */
export function decideDelivery(platform: VoicePlatform, body: DeliveryBody, agentId: string | undefined): Interpretation {
  if ('unreadable' in body) return { ...NOTHING, outcome: 'failed', reason: `The body is not JSON: ${body.unreadable}` };
  const { mapping } = body;
  if (mapping.result === 'malformed') return { ...NOTHING, outcome: 'failed', reason: `The body is not a ${platform} webhook: ${mapping.reason}` };
  if (mapping.result === 'ignored') {
    return {
      ...NOTHING,
      outcome: 'ignored',
      reason: mapping.reason,
      eventType: mapping.event_type,
      platformCallId: mapping.platform_call_id,
      platformAgentId: mapping.platform_agent_id,
    };
  }
  const known = { ...NOTHING, eventType: mapping.event_type, platformCallId: mapping.platform_call_id, platformAgentId: mapping.platform_agent_id };
  if (!agentId) {
    return {
      ...known,
      outcome: 'ignored',
      reason: `The ${platform} agent ${mapping.platform_agent_id} is not linked to an agent of this account (yet): replay the delivery once it is.`,
    };
  }
  let events: CallEvent[];
  try {
    events = splitForTransport(attributeToAgent(mapping.events, agentId), MAX_CALL_EVENT_BYTES);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return { ...known, outcome: 'failed', reason: `It maps to a call event too large for the bus: ${err.message}` };
  }
  for (const event of events) {
    const problem = findCallEventProblem(event);
    if (problem) {
      return { ...known, outcome: 'failed', reason: `It maps to call event ${event.id}, which is not valid: ${problem.field ? `${problem.field}: ` : ''}${problem.message}` };
    }
  }
  return { ...known, outcome: 'accepted', reason: null, conversationId: mapping.conversation_id, events };
}

/** The same call events, in the same order, give the same fingerprint: what makes a redelivery a duplicate. */
export function fingerprintOf(events: readonly CallEvent[]): string {
  return createHash('sha256').update(JSON.stringify(events)).digest('hex');
}

export const SAME_ANSWER = 'The webhook signature is missing or does not match this webhook URL.';

/**
 * The answer to a delivery that is not verified. An unknown platform, an unknown integration, another
 * platform's integration and a wrong signature all get the same answer, so ids cannot be probed; only a
 * delivery whose signature is right learns that its (signed) timestamp is too far from our clock.
 */
export function signatureRefusal(verdict: WebhookVerdict | undefined): { code: ErrorCode; message: string } {
  if (verdict?.ok === false && verdict.reason === 'stale_timestamp') {
    return {
      code: 'stale_timestamp',
      message: 'The webhook timestamp is more than 5 minutes away from our clock: check the sender’s clock, or whether this is an old delivery replayed.',
    };
  }
  return { code: 'invalid_signature', message: SAME_ANSWER };
}

export function isDeliveryId(value: string): boolean {
  return /^whd_[0-9a-f]{24}$/.test(value);
}
