/**
 * Where platform_b keeps each field of our agent, and in which form: the name within 40 characters, the
 * language as its ISO 639-1 code, the prompt as the one system message. The simulator reads this table too.
 */
import { createHash } from 'node:crypto';
import type { AgentFieldTable } from '../agent-fields.js';
import { isPlainObject } from '@voice/contracts';
import { stringOrNull } from '../agent-fields.js';

export const PLATFORM_B_NAME_LIMIT = 40;
const NAME_PREFIX_LENGTH = 31;
const NAME_HASH_LENGTH = 7;

/**
 * Our name as platform_b can hold it. A name of at most 40 characters goes as is; a longer one becomes its
 * first 31 characters, " ~" and 7 hex digits of SHA-256 of OUR agent id: 40 characters, and two agents whose
 * long names share a beginning still get different names (our ids are unique, so only a 28-bit hash collision
 * could make two equal). Characters are Unicode code points, as the platform counts them; a cut never splits one.
 */
export function platformBName(name: string, externalId: string): string {
  const characters = Array.from(name);
  if (characters.length <= PLATFORM_B_NAME_LIMIT) return name;
  const digest = createHash('sha256').update(externalId, 'utf8').digest('hex').slice(0, NAME_HASH_LENGTH);
  return `${characters.slice(0, NAME_PREFIX_LENGTH).join('')} ~${digest}`;
}

/** ISO 639-1 from an ISO 639-1 code or a BCP 47 tag (`en-US` → `en`, `pt-BR` → `pt`). */
export function platformBLanguage(language: string): string {
  return language.split(/[-_]/)[0].toLowerCase();
}

/** The prompt is the one system message; no prompt is an empty messages list (the model itself stays). */
function systemMessages(prompt: string | null): { messages: Array<{ role: 'system'; content: string }> } {
  return { messages: prompt === null ? [] : [{ role: 'system', content: prompt }] };
}

/** The prompt is the first system message (the one we send); none is no prompt. */
function systemPromptOf(model: unknown): string | null {
  if (!isPlainObject(model) || !Array.isArray(model.messages)) return null;
  const system = model.messages.find((message) => isPlainObject(message) && message.role === 'system');
  return isPlainObject(system) ? stringOrNull(system.content) : null;
}

export const PLATFORM_B_AGENT_FIELDS: AgentFieldTable = {
  name: { path: 'name', held: platformBName },
  voice_id: { path: 'voice.voiceId' },
  system_prompt: { path: 'model', encode: systemMessages, decode: systemPromptOf },
  welcome_message: { path: 'firstMessage' },
  language: { path: 'transcriber.language', held: platformBLanguage },
  transfer_number: { path: 'forwardingPhoneNumber' },
  webhook_url: { path: 'server.url' },
};

/** Where our agent id goes: `GET /assistant?externalId=` searches by it. */
export const PLATFORM_B_EXTERNAL_ID_PATH = 'metadata.externalId';

/** The number request's fields: the number itself, the area to buy in, and the assistant it answers for. */
export const PLATFORM_B_NUMBER_FIELDS = { phone_number: 'number', area_code: 'areaCode', bound_agent: 'assistantId' } as const;
