import { describe, expect, it } from '@jest/globals';
import type { components } from '../api/schema.generated';
import { agentChanges, agentFormOf, createAgentBody, emptyAgentForm, formPlaceOf, localErrors, type AgentFormValues } from './agent-form';

type Agent = components['schemas']['Agent'];

const agent: Agent = {
  id: 'agt_1', name: 'Front Desk', voice_platform: 'platform_a', phone_number: '+14155550100', voice_id: 'alloy', language: 'en',
  system_prompt: 'Be kind.', welcome_message: null, transfer_number: null,
  business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] }, recording_enabled: false,
  transcription_enabled: true, status: 'active', metadata: { team: 'front' }, created_at: '2026-11-01T00:00:00Z', updated_at: '2026-11-01T00:00:00Z',
  pii_redaction: { enabled: false, categories: ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'] },
  store_content: true, retention: { conversations_days: null, recordings_days: 30 },
  platform_sync: { state: 'synced', platform_agent_id: 'pa_1', synced_version: 1, last_attempt_at: null, last_error: null, last_reconciled_at: null, last_drift: null },
} as Agent;

const zones = new Set(['UTC', 'Europe/Paris', 'America/Los_Angeles']);
const isTimeZone = (name: string) => zones.has(name);

describe('the new agent form', () => {
  it("starts at the API's defaults: calls recorded and transcribed, content stored, no redaction (every category but the caller's number ready)", () => {
    const form = emptyAgentForm();
    expect(form).toMatchObject({ recording_enabled: true, transcription_enabled: true, store_content: true, pii_redaction_enabled: false });
    expect(form.pii_redaction_categories).not.toContain('caller_number');
    expect(form.pii_redaction_categories).toHaveLength(8);
  });
  it('leaves empty inputs out so the server defaults apply', () => {
    const { body } = createAgentBody({ ...emptyAgentForm(), name: 'Night Line', phone_number: ' +14155550177 ', language: '' }, isTimeZone);
    expect(body).toEqual({
      name: 'Night Line', voice_platform: 'platform_a', phone_number: '+14155550177', recording_enabled: true, transcription_enabled: true,
      store_content: true, pii_redaction: { enabled: false, categories: expect.arrayContaining(['credit_card']) },
    });
  });
  it('sends business hours day by day, in week order, and metadata rows as an object', () => {
    const form = emptyAgentForm();
    form.name = 'A';
    form.business_hours = { timezone: 'Europe/Paris', days: { ...form.business_hours.days, friday: { open: true, from: '10:00', to: '16:00' }, monday: { open: true, from: '08:00', to: '18:00' } } };
    form.metadata = [{ key: 'team', value: 'x' }, { key: '', value: '' }];
    expect(createAgentBody(form, isTimeZone).body).toMatchObject({
      business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'monday', open: '08:00', close: '18:00' }, { day: 'friday', open: '10:00', close: '16:00' }] },
      metadata: { team: 'x' },
    });
  });
});

describe('localErrors', () => {
  it('names every mistake at once: phone number, time zone, a day closing before it opens, a bad metadata key', () => {
    const form: AgentFormValues = { ...emptyAgentForm(), name: 'A', phone_number: '555-0142' };
    form.business_hours = { timezone: 'Mars/Olympus', days: { ...form.business_hours.days, tuesday: { open: true, from: '18:00', to: '09:00' } } };
    form.metadata = [{ key: 'bad key!', value: 'x' }];
    const errors = localErrors(form, isTimeZone);
    expect(Object.keys(errors).sort()).toEqual(['business_hours.timezone', 'business_hours.tuesday', 'metadata.0', 'phone_number']);
    expect(errors.phone_number).toBe('Phone number must be an E.164 phone number such as +14155550100.');
    expect(createAgentBody(form, isTimeZone)).toEqual({ errors });
  });
  it('asks for a time zone only when a day is open, and for a name always', () => {
    expect(localErrors({ ...emptyAgentForm(), name: 'A' }, isTimeZone)).toEqual({});
    expect(localErrors(emptyAgentForm(), isTimeZone)).toEqual({ name: 'Name must not be empty.' });
  });
  it('refuses a metadata key used twice', () => {
    expect(localErrors({ ...emptyAgentForm(), name: 'A', metadata: [{ key: 'k', value: '1' }, { key: 'k', value: '2' }] }, isTimeZone)).toEqual({ 'metadata.1': 'k is used twice.' });
  });
});

describe('agentChanges', () => {
  it('sends only what changed', () => {
    const form = { ...agentFormOf(agent), welcome_message: 'Hello!', recording_enabled: true };
    expect(agentChanges(agent, form, isTimeZone).body).toEqual({ welcome_message: 'Hello!', recording_enabled: true });
    expect(agentChanges(agent, agentFormOf(agent), isTimeZone).body).toEqual({});
  });
  it('clears what can be cleared, and keeps what cannot', () => {
    const form = { ...agentFormOf(agent), system_prompt: '', phone_number: '' };
    expect(agentChanges(agent, form, isTimeZone).body).toEqual({ system_prompt: null });
  });
  it('sends the redaction settings whole, and zero retention, when they change', () => {
    const form = { ...agentFormOf(agent), pii_redaction_enabled: true, store_content: false };
    expect(agentChanges(agent, form, isTimeZone).body).toEqual({ pii_redaction: { enabled: true, categories: agent.pii_redaction.categories }, store_content: false });
  });
  it('clears business hours when every day is closed, and metadata when every row is removed', () => {
    const form = agentFormOf(agent);
    form.business_hours.days.monday.open = false;
    form.metadata = [];
    expect(agentChanges(agent, form, isTimeZone).body).toEqual({ business_hours: null, metadata: null });
  });
});

describe('retention', () => {
  it('keeps forever when empty; days are whole, 1 to 3650; PATCH sends the setting whole', () => {
    expect(createAgentBody({ ...emptyAgentForm(), name: 'A' }, isTimeZone).body).not.toHaveProperty('retention');
    expect(createAgentBody({ ...emptyAgentForm(), name: 'A', retention_conversations_days: '90' }, isTimeZone).body).toMatchObject({ retention: { conversations_days: 90, recordings_days: null } });
    expect(localErrors({ ...emptyAgentForm(), name: 'A', retention_conversations_days: '0', retention_recordings_days: '1.5' }, isTimeZone)).toEqual({
      'retention.conversations_days': 'Conversations: a whole number of days from 1 to 3650, or empty to keep.',
      'retention.recordings_days': 'Recordings: a whole number of days from 1 to 3650, or empty to keep.',
    });
    const form = { ...agentFormOf(agent), retention_conversations_days: '365' };
    expect(form.retention_recordings_days).toBe('30');
    expect(agentChanges(agent, form, isTimeZone).body).toEqual({ retention: { conversations_days: 365, recordings_days: 30 } });
    expect(formPlaceOf('retention.recordings_days', form)).toBe('retention.recordings_days');
  });
});

describe('formPlaceOf', () => {
  it("shows a server error at the control it names: a schedule item at its day's row, a metadata key at its row", () => {
    const form = agentFormOf(agent);
    form.business_hours.days.wednesday = { open: true, from: '09:00', to: '12:00' };
    expect(formPlaceOf('business_hours.schedule[1].close', form)).toBe('business_hours.wednesday');
    expect(formPlaceOf('business_hours.timezone', form)).toBe('business_hours.timezone');
    expect(formPlaceOf('metadata.team', form)).toBe('metadata.0');
    expect(formPlaceOf('phone_number', form)).toBe('phone_number');
    expect(formPlaceOf('status', form)).toBeUndefined();
    expect(formPlaceOf(undefined, form)).toBeUndefined();
  });
});
