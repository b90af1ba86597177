import { isPlainObject } from '@voice/contracts';
import { PLATFORM_B_NAME_LIMIT } from '@voice/voice-platforms/field-tables';
import { characterCount, isE164, isHttpUrl } from '../field-formats.js';

export const PLATFORM_B_DEFAULT_VOICE = 'pb-voice-default';
export const PLATFORM_B_VOICES: readonly string[] = [PLATFORM_B_DEFAULT_VOICE, 'pb-voice-warm', 'pb-voice-bright', 'pb-voice-calm', 'pb-voice-deep'];

/** Field limits of platforms.md, counted in characters (Unicode code points). */
export const PLATFORM_B_LIMITS = { name: PLATFORM_B_NAME_LIMIT, firstMessage: 1_000 } as const;

export interface PlatformBAssistant {
  id: string;
  name?: string;
  firstMessage?: string;
  model?: { messages: Array<{ role: string; content: string }> };
  voice: { voiceId: string };
  transcriber?: { language: string };
  forwardingPhoneNumber?: string;
  server?: { url: string };
  metadata?: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

export type AssistantFields = Omit<PlatformBAssistant, 'id' | 'createdAt' | 'updatedAt'>;
/** What a body sets: a value, or `null` to remove the field (the voice then goes back to the default). */
export type AssistantChanges = { [K in keyof AssistantFields]?: AssistantFields[K] | null };

/** In platform_b's validation order; a spec holds it to our adapter's field table. */
export const ASSISTANT_BODY_FIELDS = ['name', 'firstMessage', 'model', 'voice', 'transcriber', 'forwardingPhoneNumber', 'server', 'metadata'] as const;
const FIELDS = ASSISTANT_BODY_FIELDS;
const MESSAGE_ROLES = ['system', 'user', 'assistant'];
const ISO_639_1 = /^[a-z]{2}$/;

/**
 * Checks a create or PATCH body the way platform_b's validation does: every problem is listed
 * (class-validator messages), unknown properties included.
 */
export function readAssistantFields(body: unknown, knownVoices: readonly string[]): { changes: AssistantChanges } | { problems: string[] } {
  if (!isPlainObject(body)) return { problems: ['request body must be a JSON object'] };
  const problems: string[] = Object.keys(body)
    .filter((key) => !(FIELDS as readonly string[]).includes(key))
    .map((key) => `property ${key} should not exist`);
  const changes: AssistantChanges = {};
  const set = <K extends keyof AssistantChanges>(key: K, value: AssistantChanges[K]) => {
    changes[key] = value;
  };
  for (const field of FIELDS) {
    if (!(field in body)) continue;
    const value = body[field];
    if (value === null) {
      set(field, null);
      continue;
    }
    const problem = FIELD_CHECKS[field](value, knownVoices);
    if (problem.length > 0) problems.push(...problem);
    else set(field, structuredClone(value) as never);
  }
  return problems.length > 0 ? { problems } : { changes };
}

type Check = (value: unknown, knownVoices: readonly string[]) => string[];

const FIELD_CHECKS: Record<(typeof FIELDS)[number], Check> = {
  name: (value) => text('name', value, PLATFORM_B_LIMITS.name),
  firstMessage: (value) => text('firstMessage', value, PLATFORM_B_LIMITS.firstMessage),
  model: (value) => {
    if (!isPlainObject(value)) return ['model must be an object'];
    const problems = extraProperties('model', value, ['messages']);
    if (!Array.isArray(value.messages)) return [...problems, 'model.messages must be an array'];
    value.messages.forEach((message, index) => {
      if (!isPlainObject(message)) return problems.push(`model.messages.${index} must be an object`);
      problems.push(...extraProperties(`model.messages.${index}`, message, ['role', 'content']));
      if (!MESSAGE_ROLES.includes(message.role as string)) problems.push(`model.messages.${index}.role must be one of the following values: ${MESSAGE_ROLES.join(', ')}`);
      if (typeof message.content !== 'string') problems.push(`model.messages.${index}.content must be a string`);
    });
    return problems;
  },
  voice: (value, knownVoices) => {
    if (!isPlainObject(value)) return ['voice must be an object'];
    const problems = extraProperties('voice', value, ['voiceId']);
    if (typeof value.voiceId !== 'string' || !knownVoices.includes(value.voiceId)) problems.push('voice.voiceId must be a known voice');
    return problems;
  },
  transcriber: (value) => {
    if (!isPlainObject(value)) return ['transcriber must be an object'];
    const problems = extraProperties('transcriber', value, ['language']);
    if (typeof value.language !== 'string' || !ISO_639_1.test(value.language)) problems.push('transcriber.language must be an ISO 639-1 code');
    return problems;
  },
  forwardingPhoneNumber: (value) => (isE164(value) ? [] : ['forwardingPhoneNumber must be a valid E.164 phone number']),
  server: (value) => {
    if (!isPlainObject(value)) return ['server must be an object'];
    const problems = extraProperties('server', value, ['url']);
    if (!isHttpUrl(value.url)) problems.push('server.url must be a URL address');
    return problems;
  },
  metadata: (value) => (isPlainObject(value) ? [] : ['metadata must be an object']),
};

function text(field: string, value: unknown, limit: number): string[] {
  if (typeof value !== 'string') return [`${field} must be a string`];
  return characterCount(value) > limit ? [`${field} must be shorter than or equal to ${limit} characters`] : [];
}

function extraProperties(path: string, value: Record<string, unknown>, allowed: string[]): string[] {
  return Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${path}.property ${key} should not exist`);
}
