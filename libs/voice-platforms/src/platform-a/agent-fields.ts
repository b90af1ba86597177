/**
 * Where platform_a keeps each field of our agent: one to one, as given (voice libraries are the platform's,
 * and platform_a takes BCP 47 and bare ISO 639-1 alike). The simulator reads this table too.
 */
import type { AgentFieldTable } from '../agent-fields.js';

export const PLATFORM_A_AGENT_FIELDS: AgentFieldTable = {
  name: { path: 'agent_name' },
  voice_id: { path: 'voice_id' },
  language: { path: 'language' },
  system_prompt: { path: 'prompt' },
  welcome_message: { path: 'begin_message' },
  transfer_number: { path: 'transfer_number' },
  webhook_url: { path: 'webhook_url' },
};

/** Where our agent id goes: platform_a searches agents by it exactly. */
export const PLATFORM_A_EXTERNAL_ID_PATH = 'metadata.external_id';

/** The number request's fields: the number itself, the area to buy in, and the agent it answers for. */
export const PLATFORM_A_NUMBER_FIELDS = { phone_number: 'phone_number', area_code: 'area_code', bound_agent: 'inbound_agent_id' } as const;
