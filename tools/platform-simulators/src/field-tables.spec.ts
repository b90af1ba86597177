import { describe, expect, it } from '@jest/globals';
import {
  agentBodyProperties, PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH, PLATFORM_B_AGENT_FIELDS, PLATFORM_B_EXTERNAL_ID_PATH,
} from '@voice/voice-platforms/field-tables';
import { AGENT_BODY_FIELDS } from './platform-a/agent-fields.js';
import { ASSISTANT_BODY_FIELDS } from './platform-b/assistant-fields.js';

describe('the simulators accept exactly the agent fields our adapters write', () => {
  it('platform_a: every property of the field table, and metadata', () => {
    expect([...AGENT_BODY_FIELDS].sort()).toEqual(
      ['agent_name', 'begin_message', 'language', 'metadata', 'prompt', 'transfer_number', 'voice_id', 'webhook_url'],
    );
    expect([...AGENT_BODY_FIELDS].sort()).toEqual(agentBodyProperties(PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH).sort());
  });

  it('platform_b: every object of the field table, and metadata', () => {
    expect([...ASSISTANT_BODY_FIELDS].sort()).toEqual(agentBodyProperties(PLATFORM_B_AGENT_FIELDS, PLATFORM_B_EXTERNAL_ID_PATH).sort());
  });
});
