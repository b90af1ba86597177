/** The agent's state each of its integration events carries (AgentIntegrationEvent), and the agent outbound events show. */
import { Type, type Static } from '@sinclair/typebox';
import { PiiRedactionSchema, RetentionSchema } from './agent-views.js';
import { AGENT_STATUSES, VOICE_PLATFORMS } from './agents.js';
import { ClosedObject, StringEnum } from './view-schema.js';

/** The snapshot's fields besides its keys: what an outbound agent event shows under the agent's id. */
export const agentSnapshotFields = {
  name: Type.String(),
  voice_platform: StringEnum(VOICE_PLATFORMS),
  status: StringEnum([...AGENT_STATUSES, 'deleted'] as const),
  recording_enabled: Type.Boolean(),
  transcription_enabled: Type.Boolean(),
  // Absent from events relayed before the settings existed: read as defaultPiiRedaction(), true and defaultRetention().
  pii_redaction: Type.Optional(PiiRedactionSchema),
  store_content: Type.Optional(Type.Boolean()),
  retention: Type.Optional(RetentionSchema),
};

export const AgentSnapshotSchema = ClosedObject({ agent_id: Type.String(), account_id: Type.String(), ...agentSnapshotFields });
export type AgentSnapshot = Static<typeof AgentSnapshotSchema>;
