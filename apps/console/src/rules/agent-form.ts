import type { components } from '../api/schema.generated';

type Agent = components['schemas']['Agent'];
type CreateAgentRequest = components['schemas']['CreateAgentRequest'];
type UpdateAgentRequest = components['schemas']['UpdateAgentRequest'];

/** The agent form as the inputs hold it: text, with business hours and metadata as JSON. */
export interface AgentFormValues {
  name: string;
  voice_platform: string;
  phone_number: string;
  voice_id: string;
  language: string;
  system_prompt: string;
  welcome_message: string;
  transfer_number: string;
  recording_enabled: boolean;
  transcription_enabled: boolean;
  business_hours: string;
  metadata: string;
}
export const AGENT_FORM_FIELDS = [
  'name', 'voice_platform', 'phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message',
  'transfer_number', 'recording_enabled', 'transcription_enabled', 'business_hours', 'metadata',
] as const satisfies ReadonlyArray<keyof AgentFormValues>;

export type FormErrors = Partial<Record<keyof AgentFormValues, string>>;

export function emptyAgentForm(): AgentFormValues {
  return {
    name: '', voice_platform: 'platform_a', phone_number: '', voice_id: '', language: 'en', system_prompt: '', welcome_message: '',
    transfer_number: '', recording_enabled: false, transcription_enabled: true, business_hours: '', metadata: '',
  };
}

const json = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2));

export function agentFormOf(agent: Agent): AgentFormValues {
  return {
    name: agent.name, voice_platform: agent.voice_platform, phone_number: agent.phone_number ?? '', voice_id: agent.voice_id ?? '',
    language: agent.language ?? '', system_prompt: agent.system_prompt ?? '', welcome_message: agent.welcome_message ?? '',
    transfer_number: agent.transfer_number ?? '', recording_enabled: agent.recording_enabled, transcription_enabled: agent.transcription_enabled,
    business_hours: json(agent.business_hours), metadata: agent.metadata && Object.keys(agent.metadata).length ? json(agent.metadata) : '',
  };
}

/** The JSON fields parsed; a value that is not JSON is the user's mistake, named at its field before anything is sent. */
function parseJsonFields(form: AgentFormValues): { values: { business_hours?: unknown; metadata?: unknown }; errors: FormErrors } {
  const values: { business_hours?: unknown; metadata?: unknown } = {};
  const errors: FormErrors = {};
  for (const field of ['business_hours', 'metadata'] as const) {
    if (!form[field].trim()) continue;
    try {
      values[field] = JSON.parse(form[field]);
    } catch {
      errors[field] = 'Not valid JSON.';
    }
  }
  return { values, errors };
}

const TEXT_FIELDS = ['phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message', 'transfer_number'] as const;

/** POST /v1/agents: empty inputs are left out, so the server's defaults apply. */
export function createAgentBody(form: AgentFormValues): { body?: CreateAgentRequest; errors: FormErrors } {
  const { values, errors } = parseJsonFields(form);
  if (Object.keys(errors).length) return { errors };
  const body: Record<string, unknown> = {
    name: form.name,
    voice_platform: form.voice_platform,
    recording_enabled: form.recording_enabled,
    transcription_enabled: form.transcription_enabled,
  };
  for (const field of TEXT_FIELDS) if (form[field].trim()) body[field] = form[field].trim();
  if (values.business_hours !== undefined) body.business_hours = values.business_hours;
  if (values.metadata !== undefined) body.metadata = values.metadata;
  return { body: body as unknown as CreateAgentRequest, errors };
}

/** The values that can be cleared (null); the others keep their value when their input is emptied. */
const CLEARABLE = new Set(['system_prompt', 'welcome_message', 'transfer_number', 'business_hours', 'metadata']);

/** PATCH /v1/agents/{id}: only what changed, so a concurrent change to another field is not overwritten. */
export function agentChanges(agent: Agent, form: AgentFormValues): { body?: UpdateAgentRequest; errors: FormErrors } {
  const { values, errors } = parseJsonFields(form);
  if (Object.keys(errors).length) return { errors };
  const before = agentFormOf(agent);
  const body: Record<string, unknown> = {};
  for (const field of AGENT_FORM_FIELDS) {
    if (form[field] === before[field]) continue;
    const value = form[field];
    if (typeof value === 'boolean') body[field] = value;
    else if (field === 'business_hours' || field === 'metadata') body[field] = value.trim() ? values[field] : null;
    else if (value.trim()) body[field] = value.trim();
    else if (CLEARABLE.has(field)) body[field] = null;
  }
  return { body: body as UpdateAgentRequest, errors };
}
