import { isPlainObject } from '@voice/contracts';
import { agentBodyProperties, PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH } from '@voice/voice-platforms/field-tables';
import { characterCount, isE164, isHttpUrl } from '../field-formats.js';

export const PLATFORM_A_DEFAULT_VOICE = 'pa-voice-default';
export const PLATFORM_A_VOICES: readonly string[] = [PLATFORM_A_DEFAULT_VOICE, 'pa-voice-warm', 'pa-voice-bright', 'pa-voice-calm', 'pa-voice-deep'];
export const PLATFORM_A_DEFAULT_LANGUAGE = 'en-US';

/** Field limits of platforms.md, counted in characters (Unicode code points). */
export const PLATFORM_A_LIMITS = { agentName: 100, prompt: 32_000, beginMessage: 1_000, metadataKeys: 20 } as const;

export interface PlatformAAgent {
  agent_id: string;
  agent_name: string | null;
  voice_id: string;
  language: string;
  prompt: string | null;
  begin_message: string | null;
  transfer_number: string | null;
  webhook_url: string | null;
  metadata: Record<string, string>;
  /** Unix ms. */
  last_modified_timestamp: number;
}

export type PlatformAAgentFields = Omit<PlatformAAgent, 'agent_id' | 'last_modified_timestamp'>;

/** A refusal: the status and the `error_message` of platform_a's error body. */
export interface FieldError {
  status: 400 | 422;
  message: string;
}

/** What an agent body may set: exactly what our adapter's field table writes (the simulator stays in step with it). */
export const AGENT_BODY_FIELDS: readonly string[] = agentBodyProperties(PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH);
/** BCP 47 as integrators send it (`en`, `en-US`, `zh-Hant-TW`, `es-419`). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * Checks a create or PATCH body and returns the fields it sets. Every listed field may be absent; unknown
 * fields are refused so that a misspelt one does not silently go missing.
 */
export function readAgentFields(body: unknown, knownVoices: readonly string[]): { fields: Partial<PlatformAAgentFields> } | { error: FieldError } {
  if (!isPlainObject(body)) return { error: { status: 400, message: 'request body must be a JSON object' } };
  const unknown = Object.keys(body).find((key) => !AGENT_BODY_FIELDS.includes(key));
  if (unknown !== undefined) return { error: { status: 422, message: `unknown field '${unknown}'` } };
  const fields: Partial<PlatformAAgentFields> = {};
  const problem =
    optionalText(body, 'agent_name', PLATFORM_A_LIMITS.agentName, fields) ??
    optionalText(body, 'prompt', PLATFORM_A_LIMITS.prompt, fields) ??
    optionalText(body, 'begin_message', PLATFORM_A_LIMITS.beginMessage, fields) ??
    readVoice(body, knownVoices, fields) ??
    readLanguage(body, fields) ??
    readTransferNumber(body, fields) ??
    readWebhookUrl(body, fields) ??
    readMetadata(body, fields);
  return problem ? { error: problem } : { fields };
}

type Body = Record<string, unknown>;

function optionalText(body: Body, field: 'agent_name' | 'prompt' | 'begin_message', limit: number, fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!(field in body)) return undefined;
  const value = body[field];
  if (value === null) {
    fields[field] = null;
    return undefined;
  }
  if (typeof value !== 'string') return { status: 422, message: `${field} must be a string` };
  if (characterCount(value) > limit) return { status: 422, message: `${field} must be at most ${limit} characters (got ${characterCount(value)})` };
  fields[field] = value;
  return undefined;
}

function readVoice(body: Body, knownVoices: readonly string[], fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!('voice_id' in body)) return undefined;
  const voice = body.voice_id;
  if (typeof voice !== 'string') return { status: 422, message: 'voice_id must be a string' };
  if (!knownVoices.includes(voice)) return { status: 422, message: `voice_id '${voice}' does not exist` };
  fields.voice_id = voice;
  return undefined;
}

function readLanguage(body: Body, fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!('language' in body)) return undefined;
  const language = body.language;
  if (typeof language !== 'string' || !LANGUAGE_TAG.test(language)) return { status: 422, message: `language '${String(language)}' is not a BCP 47 language tag` };
  fields.language = language;
  return undefined;
}

function readTransferNumber(body: Body, fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!('transfer_number' in body)) return undefined;
  const number = body.transfer_number;
  if (number !== null && !isE164(number)) return { status: 422, message: `transfer_number '${String(number)}' is not an E.164 number` };
  fields.transfer_number = number;
  return undefined;
}

function readWebhookUrl(body: Body, fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!('webhook_url' in body)) return undefined;
  const url = body.webhook_url;
  if (url !== null && !isHttpUrl(url)) return { status: 422, message: `webhook_url '${String(url)}' is not an http(s) URL` };
  fields.webhook_url = url;
  return undefined;
}

function readMetadata(body: Body, fields: Partial<PlatformAAgentFields>): FieldError | undefined {
  if (!('metadata' in body)) return undefined;
  const metadata = body.metadata;
  if (!isPlainObject(metadata)) return { status: 422, message: 'metadata must be an object of strings' };
  const entries = Object.entries(metadata);
  if (entries.length > PLATFORM_A_LIMITS.metadataKeys) return { status: 422, message: `metadata must have at most ${PLATFORM_A_LIMITS.metadataKeys} keys (got ${entries.length})` };
  const notString = entries.find(([, value]) => typeof value !== 'string');
  if (notString) return { status: 422, message: `metadata.${notString[0]} must be a string` };
  fields.metadata = { ...(metadata as Record<string, string>) };
  return undefined;
}
