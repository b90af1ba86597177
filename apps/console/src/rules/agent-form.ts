import { agentPii_redactionCategoriesValues, type components } from '../api/schema.generated';

type Agent = components['schemas']['Agent'];
type CreateAgentRequest = components['schemas']['CreateAgentRequest'];
type UpdateAgentRequest = components['schemas']['UpdateAgentRequest'];
type BusinessHours = components['schemas']['BusinessHours'];
export type PiiCategory = (typeof agentPii_redactionCategoriesValues)[number];

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One day of the business-hours editor: closed, or open from–to (HH:MM, the time input's value). */
export interface DayHours {
  open: boolean;
  from: string;
  to: string;
}

export interface BusinessHoursForm {
  timezone: string;
  days: Record<Weekday, DayHours>;
}

export interface MetadataRow {
  key: string;
  value: string;
}

/** The agent form as the inputs hold it: text and ticks, business hours day by day, metadata as rows. */
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
  store_content: boolean;
  pii_redaction_enabled: boolean;
  pii_redaction_categories: PiiCategory[];
  /** Whole days as typed; empty keeps forever. */
  retention_conversations_days: string;
  retention_recordings_days: string;
  business_hours: BusinessHoursForm;
  metadata: MetadataRow[];
}

/** The request fields the form edits: a server error naming one of them (or a value inside it) is shown at its control. */
export const AGENT_FORM_FIELDS = [
  'name', 'voice_platform', 'phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message',
  'transfer_number', 'recording_enabled', 'transcription_enabled', 'store_content', 'pii_redaction', 'retention', 'business_hours', 'metadata',
] as const;
export type AgentFormField = (typeof AGENT_FORM_FIELDS)[number];

/**
 * Errors by where they are shown: a request field (`phone_number`), or a part of one the form edits apart:
 * `business_hours.timezone`, `business_hours.<weekday>`, `metadata.<row index>`, `retention.conversations_days`,
 * `retention.recordings_days`.
 */
export type FormErrors = Record<string, string>;

/** The API's defaults (an agent created without the field gets these); caller_number is redacted only on request. */
export const DEFAULT_PII_CATEGORIES: PiiCategory[] = agentPii_redactionCategoriesValues.filter((c) => c !== 'caller_number');
const DEFAULT_DAY: DayHours = { open: false, from: '09:00', to: '17:00' };
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,40}$/;
const METADATA_MAX_KEYS = 10;
const METADATA_MAX_VALUE = 500;
const E164 = /^\+[1-9]\d{1,14}$/;
const NAME_MAX = 100;
const RETENTION_DAYS = { min: 1, max: 3650 };

function closedWeek(): Record<Weekday, DayHours> {
  return Object.fromEntries(WEEKDAYS.map((day) => [day, { ...DEFAULT_DAY }])) as Record<Weekday, DayHours>;
}

export function emptyAgentForm(): AgentFormValues {
  return {
    name: '', voice_platform: 'platform_a', phone_number: '', voice_id: '', language: 'en', system_prompt: '', welcome_message: '',
    transfer_number: '', recording_enabled: true, transcription_enabled: true, store_content: true,
    pii_redaction_enabled: false, pii_redaction_categories: [...DEFAULT_PII_CATEGORIES],
    retention_conversations_days: '', retention_recordings_days: '',
    business_hours: { timezone: '', days: closedWeek() }, metadata: [],
  };
}

function businessHoursFormOf(hours: BusinessHours | null): BusinessHoursForm {
  const days = closedWeek();
  for (const item of hours?.schedule ?? []) days[item.day] = { open: true, from: item.open, to: item.close };
  return { timezone: hours?.timezone ?? '', days };
}

const days = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));

/** The retention setting as the API takes it: a number of days, or null to keep. */
function retentionOf(form: AgentFormValues): { conversations_days: number | null; recordings_days: number | null } {
  const value = (text: string) => (text.trim() ? Number(text.trim()) : null);
  return { conversations_days: value(form.retention_conversations_days), recordings_days: value(form.retention_recordings_days) };
}

export function agentFormOf(agent: Agent): AgentFormValues {
  return {
    name: agent.name, voice_platform: agent.voice_platform, phone_number: agent.phone_number ?? '', voice_id: agent.voice_id ?? '',
    language: agent.language ?? '', system_prompt: agent.system_prompt ?? '', welcome_message: agent.welcome_message ?? '',
    transfer_number: agent.transfer_number ?? '', recording_enabled: agent.recording_enabled, transcription_enabled: agent.transcription_enabled,
    store_content: agent.store_content, pii_redaction_enabled: agent.pii_redaction.enabled, pii_redaction_categories: [...agent.pii_redaction.categories],
    retention_conversations_days: days(agent.retention?.conversations_days), retention_recordings_days: days(agent.retention?.recordings_days),
    business_hours: businessHoursFormOf(agent.business_hours), metadata: Object.entries(agent.metadata ?? {}).map(([key, value]) => ({ key, value })),
  };
}

/** The schedule as the API takes it (open days in week order), or null when every day is closed. */
export function businessHoursOf(form: BusinessHoursForm): BusinessHours | null {
  const schedule = WEEKDAYS.filter((day) => form.days[day].open).map((day) => ({ day, open: form.days[day].from, close: form.days[day].to }));
  return schedule.length ? { timezone: form.timezone.trim(), schedule } : null;
}

function metadataOf(rows: MetadataRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.key.trim() || r.value).map((r) => [r.key.trim(), r.value]));
}

/**
 * Every mistake the form can see before sending, all at once (the API stops at its first), in the API's words
 * where it has them. `isTimeZone` is the browser's judgement of a time zone name.
 */
export function localErrors(form: AgentFormValues, isTimeZone: (name: string) => boolean): FormErrors {
  const errors: FormErrors = {};
  if (!form.name.trim()) errors.name = 'Name must not be empty.';
  else if ([...form.name.trim()].length > NAME_MAX) errors.name = `Name must be at most ${NAME_MAX} characters.`;
  for (const [field, label] of [['phone_number', 'Phone number'], ['transfer_number', 'Transfer number']] as const) {
    const value = form[field].trim();
    if (value && !E164.test(value)) errors[field] = `${label} must be an E.164 phone number such as +14155550100.`;
  }
  const anyOpen = WEEKDAYS.some((day) => form.business_hours.days[day].open);
  if (anyOpen) {
    const timezone = form.business_hours.timezone.trim();
    if (!timezone) errors['business_hours.timezone'] = 'Choose the time zone the hours are in.';
    else if (!isTimeZone(timezone)) errors['business_hours.timezone'] = `${timezone} is not an IANA time zone name such as Europe/Paris.`;
  }
  for (const day of WEEKDAYS) {
    const hours = form.business_hours.days[day];
    if (!hours.open) continue;
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(hours.from) || !/^([01]\d|2[0-3]):[0-5]\d$/.test(hours.to)) errors[`business_hours.${day}`] = 'Give an opening and a closing time.';
    else if (hours.to <= hours.from) errors[`business_hours.${day}`] = 'Closing must be later than opening.';
  }
  for (const [key, label] of [['conversations_days', 'Conversations'], ['recordings_days', 'Recordings']] as const) {
    const text = form[`retention_${key}`].trim();
    if (!text) continue;
    const n = Number(text);
    if (!Number.isInteger(n) || n < RETENTION_DAYS.min || n > RETENTION_DAYS.max) {
      errors[`retention.${key}`] = `${label}: a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or empty to keep.`;
    }
  }
  const seen = new Set<string>();
  form.metadata.forEach((row, index) => {
    const key = row.key.trim();
    if (!key && !row.value) return;
    if (!METADATA_KEY.test(key)) errors[`metadata.${index}`] = 'Keys are 1–40 letters, digits, "_", "-" and ".".';
    else if (seen.has(key)) errors[`metadata.${index}`] = `${key} is used twice.`;
    else if (row.value.length > METADATA_MAX_VALUE) errors[`metadata.${index}`] = `A value is at most ${METADATA_MAX_VALUE} characters.`;
    seen.add(key);
  });
  if (Object.keys(metadataOf(form.metadata)).length > METADATA_MAX_KEYS) errors.metadata = `At most ${METADATA_MAX_KEYS} keys.`;
  return errors;
}

const TEXT_FIELDS = ['phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message', 'transfer_number'] as const;

/** POST /v1/agents: empty inputs are left out, so the server's defaults apply. */
export function createAgentBody(form: AgentFormValues, isTimeZone: (name: string) => boolean): { body?: CreateAgentRequest; errors: FormErrors } {
  const errors = localErrors(form, isTimeZone);
  if (Object.keys(errors).length) return { errors };
  const body: Record<string, unknown> = {
    name: form.name.trim(),
    voice_platform: form.voice_platform,
    recording_enabled: form.recording_enabled,
    transcription_enabled: form.transcription_enabled,
    store_content: form.store_content,
    pii_redaction: { enabled: form.pii_redaction_enabled, categories: form.pii_redaction_categories },
  };
  const retention = retentionOf(form);
  if (retention.conversations_days !== null || retention.recordings_days !== null) body.retention = retention;
  for (const field of TEXT_FIELDS) if (form[field].trim()) body[field] = form[field].trim();
  const hours = businessHoursOf(form.business_hours);
  if (hours) body.business_hours = hours;
  const metadata = metadataOf(form.metadata);
  if (Object.keys(metadata).length) body.metadata = metadata;
  return { body: body as unknown as CreateAgentRequest, errors };
}

/** The values that can be cleared (null); the others keep their value when their input is emptied. */
const CLEARABLE = new Set(['system_prompt', 'welcome_message', 'transfer_number']);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** PATCH /v1/agents/{id}: only what changed, so a concurrent change to another field is not overwritten. */
export function agentChanges(agent: Agent, form: AgentFormValues, isTimeZone: (name: string) => boolean): { body?: UpdateAgentRequest; errors: FormErrors } {
  const errors = localErrors(form, isTimeZone);
  if (Object.keys(errors).length) return { errors };
  const before = agentFormOf(agent);
  const body: Record<string, unknown> = {};
  for (const field of ['name', 'voice_platform', ...TEXT_FIELDS] as const) {
    const value = form[field].trim();
    if (value === before[field]) continue;
    if (value) body[field] = value;
    else if (CLEARABLE.has(field)) body[field] = null;
  }
  for (const field of ['recording_enabled', 'transcription_enabled', 'store_content'] as const) if (form[field] !== before[field]) body[field] = form[field];
  if (form.pii_redaction_enabled !== before.pii_redaction_enabled || !same([...form.pii_redaction_categories].sort(), [...before.pii_redaction_categories].sort())) {
    // PATCH replaces the redaction settings whole.
    body.pii_redaction = { enabled: form.pii_redaction_enabled, categories: form.pii_redaction_categories };
  }
  // PATCH replaces retention whole too.
  if (!same(retentionOf(form), retentionOf(before))) body.retention = retentionOf(form);
  const hours = businessHoursOf(form.business_hours);
  if (!same(hours, businessHoursOf(before.business_hours))) body.business_hours = hours;
  const metadata = metadataOf(form.metadata);
  if (!same(metadata, metadataOf(before.metadata))) body.metadata = Object.keys(metadata).length ? metadata : null;
  return { body: body as UpdateAgentRequest, errors };
}

/**
 * Where the form shows an error the server named: a schedule item at its weekday's row (by the order the
 * schedule was sent in), a metadata key at its row, business_hours.timezone at the time zone, any other nested
 * value at the field that holds it. Undefined when the error is not about the form's fields.
 */
export function formPlaceOf(field: string | undefined, form: AgentFormValues): string | undefined {
  if (!field) return undefined;
  const top = field.split(/[.[]/)[0];
  if (!(AGENT_FORM_FIELDS as readonly string[]).includes(top)) return undefined;
  if (top === 'business_hours') {
    if (field.startsWith('business_hours.timezone')) return 'business_hours.timezone';
    const index = /^business_hours\.schedule\[(\d+)\]/.exec(field)?.[1];
    const openDays = WEEKDAYS.filter((day) => form.business_hours.days[day].open);
    if (index !== undefined && openDays[Number(index)]) return `business_hours.${openDays[Number(index)]}`;
    return 'business_hours';
  }
  if (top === 'retention') return /^retention\.(conversations_days|recordings_days)/.exec(field)?.[0] ?? 'retention';
  if (top === 'metadata') {
    const key = field.slice('metadata.'.length);
    const row = form.metadata.findIndex((r) => r.key.trim() === key);
    return row >= 0 ? `metadata.${row}` : 'metadata';
  }
  return top;
}
