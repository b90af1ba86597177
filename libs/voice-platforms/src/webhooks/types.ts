import type { VoicePlatform } from '@voice/contracts';
import type { CallEvent } from '@voice/contracts';

/** The voice platforms whose webhooks are mapped (platforms.md): every one an agent can be on. */
export type WebhookPlatform = VoicePlatform;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * A call event before it is known which of our agents handled the call: webhooks name the
 * platform's agent, and only the receiver can look up whose agent that is (attributeToAgent).
 */
export type UnattributedCallEvent = DistributiveOmit<CallEvent, 'agent_id'>;

/**
 * What one webhook body says, in our call-event contract:
 * - `mapped`: the events to publish (at least one), all valid per findCallEventProblem once attributed;
 * - `ignored`: the platform's shape, but nothing our conversations record (an unknown event type, a
 *   partial transcript, a `ringing` status...): answer 2xx so the platform does not retry it;
 * - `malformed`: not the platform's shape at all; `reason` names the path (`call.call_id is missing`).
 */
export type WebhookMapping =
  | {
      result: 'mapped';
      event_type: string;
      platform_agent_id: string;
      platform_call_id: string;
      conversation_id: string;
      events: UnattributedCallEvent[];
    }
  | {
      result: 'ignored';
      reason: string;
      event_type: string | null;
      platform_agent_id: string | null;
      platform_call_id: string | null;
    }
  | { result: 'malformed'; reason: string };
