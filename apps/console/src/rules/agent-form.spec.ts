import { describe, expect, it } from '@jest/globals';
import type { components } from '../api/schema.generated';
import { agentChanges, agentFormOf, createAgentBody, emptyAgentForm } from './agent-form';

type Agent = components['schemas']['Agent'];

const agent: Agent = {
  id: 'agt_1', name: 'Front Desk', voice_platform: 'platform_a', phone_number: '+14155550100', voice_id: 'alloy', language: 'en',
  system_prompt: 'Be kind.', welcome_message: null, transfer_number: null, business_hours: null, recording_enabled: false,
  transcription_enabled: true, status: 'active', metadata: {}, created_at: '2026-11-01T00:00:00Z', updated_at: '2026-11-01T00:00:00Z',
  platform_sync: { state: 'synced', platform_agent_id: 'pa_1', synced_version: 1, last_attempt_at: null, last_error: null },
} as Agent;

describe('createAgentBody', () => {
  it('leaves empty inputs out so the server defaults apply', () => {
    const { body } = createAgentBody({ ...emptyAgentForm(), name: 'Night Line', phone_number: ' +14155550177 ', language: '' });
    expect(body).toEqual({ name: 'Night Line', voice_platform: 'platform_a', phone_number: '+14155550177', recording_enabled: false, transcription_enabled: true });
  });
  it('parses the JSON inputs, and names one that is not JSON before sending anything', () => {
    expect(createAgentBody({ ...emptyAgentForm(), name: 'A', metadata: '{"team":"x"}' }).body).toMatchObject({ metadata: { team: 'x' } });
    expect(createAgentBody({ ...emptyAgentForm(), name: 'A', business_hours: '{oops' })).toEqual({ errors: { business_hours: 'Not valid JSON.' } });
  });
});

describe('agentChanges', () => {
  it('sends only what changed', () => {
    const form = { ...agentFormOf(agent), welcome_message: 'Hello!', recording_enabled: true };
    expect(agentChanges(agent, form).body).toEqual({ welcome_message: 'Hello!', recording_enabled: true });
    expect(agentChanges(agent, agentFormOf(agent)).body).toEqual({});
  });
  it('clears what can be cleared, and keeps what cannot', () => {
    const form = { ...agentFormOf(agent), system_prompt: '', phone_number: '' };
    expect(agentChanges(agent, form).body).toEqual({ system_prompt: null });
  });
});
