/**
 * The platforms' agent field tables alone, without the HTTP client: what the simulators import
 * (`@voice/voice-platforms/field-tables`) to accept exactly the fields our adapters write.
 */
import { AGENT_SPEC_FIELDS, type AgentFieldTable } from './agent-fields.js';

export { AGENT_SPEC_FIELDS, type AgentFieldTable } from './agent-fields.js';
export { PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH, PLATFORM_A_NUMBER_FIELDS } from './platform-a/agent-fields.js';
export { PLATFORM_B_AGENT_FIELDS, PLATFORM_B_EXTERNAL_ID_PATH, PLATFORM_B_NAME_LIMIT, PLATFORM_B_NUMBER_FIELDS } from './platform-b/agent-fields.js';

/** The top-level properties of an agent body the table describes: each field's object, and the one holding our id. */
export function agentBodyProperties(table: AgentFieldTable, externalIdPath: string): string[] {
  const tops = [...AGENT_SPEC_FIELDS.map((field) => table[field].path), externalIdPath].map((path) => path.split('.')[0]);
  return [...new Set(tops)];
}
