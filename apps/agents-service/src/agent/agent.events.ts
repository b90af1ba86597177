import { AgentEventTypes } from '@voice/contracts';
import type { AgentFields } from './agent.js';

/** Event payloads as stored in agents.events.data. Types are explicit strings, never class names. */
export interface AgentCreated {
  type: typeof AgentEventTypes.created;
  data: AgentFields & { agent_id: string; account_id: string; created_at: string };
}
export interface AgentUpdated {
  type: typeof AgentEventTypes.updated;
  /** Only the fields that changed. */
  data: { changes: Partial<AgentFields>; updated_at: string };
}
export interface AgentPaused {
  type: typeof AgentEventTypes.paused;
  data: { paused_at: string };
}
export interface AgentResumed {
  type: typeof AgentEventTypes.resumed;
  data: { resumed_at: string };
}
export interface AgentDeleted {
  type: typeof AgentEventTypes.deleted;
  /**
   * The number the agent gave up, so the release is visible in the history.
   * `reason` platform_refused: the create was refused by the voice platform, and the agent was never shown.
   */
  data: { deleted_at: string; released_phone_number: string | null; reason?: 'platform_refused' };
}
/** The platform sold the agent a number (phone_number was omitted on create): it is the agent's number from now on. */
export interface AgentPhoneNumberAssigned {
  type: typeof AgentEventTypes.phoneNumberAssigned;
  data: { phone_number: string; assigned_at: string };
}

export type AgentEvent = AgentCreated | AgentUpdated | AgentPaused | AgentResumed | AgentDeleted | AgentPhoneNumberAssigned;
