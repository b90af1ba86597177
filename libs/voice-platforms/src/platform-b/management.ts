/**
 * Our agent ↔ platform_b's management API ("message envelope" family). Pure:
 * bodies out, answers and errors in, no I/O.
 *
 * Decisions:
 * - Names: platform_b holds 40 characters, ours 100. A name of at most 40
 *   characters goes as is. A longer one becomes its first 31 characters, " ~"
 *   and 7 hex digits of SHA-256 of OUR agent id: 40 characters, and two agents
 *   whose long names share a beginning still get different names (our ids are
 *   unique, so only a 28-bit hash collision could make two equal). The name is
 *   display only there: we find agents by metadata.externalId, never by name.
 *   Characters are counted as Unicode code points, as the platform does, and a
 *   cut never splits one.
 * - Languages: platform_b takes ISO 639-1 only, so a BCP 47 tag goes as its
 *   primary language subtag, lowercased (`en-US` → `en`, `pt-BR` → `pt`).
 * - The prompt is the one system message: model.messages = [{ role: 'system', content }];
 *   no prompt is an empty messages list (the model itself stays).
 * - welcome_message → firstMessage, transfer_number → forwardingPhoneNumber,
 *   webhook_url → server.url, voice_id → voice.voiceId (passed through).
 * - Our agent id is `metadata.externalId`, which `GET /assistant?externalId=` searches.
 * - On create, unset optional fields are left out; on update, a cleared one is
 *   sent as null, which platform_b treats as "remove the field".
 * - Errors: `message` (a string or an array of strings, joined with "; ") is
 *   the explanation; the first platform path it mentions is named back as our field.
 *   A 400 on POST /phone-number is told apart by its text: "already …" is
 *   number_in_use, "no … available" is number_unavailable.
 * - Numbers: platform_b knows them by its own id (kept as platform_number_id)
 *   and buys only in a named area, so a purchase without an area code is
 *   refused here (rejected, field area_code) instead of being sent.
 */
import { createHash } from 'node:crypto';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformNumber, StoredAgentFields,
} from './voice-platform.port.js';
import { failureForStatus, fieldMentioned, saysNoNumberAvailable, saysNumberAlreadyRegistered, type PlatformFailure } from './platform-call-failed.js';

export const PLATFORM_B_NAME_LIMIT = 40;
const NAME_PREFIX_LENGTH = 31;
const NAME_HASH_LENGTH = 7;

export interface PlatformBAssistantBody {
  name?: string;
  firstMessage?: string | null;
  model?: { messages: Array<{ role: 'system'; content: string }> };
  voice?: { voiceId: string };
  transcriber?: { language: string };
  forwardingPhoneNumber?: string | null;
  server?: { url: string };
  metadata?: { externalId: string };
}

export const PLATFORM_B_FIELD_PATHS: ReadonlyArray<readonly [string, string]> = [
  ['name', 'name'],
  ['voice', 'voice_id'],
  ['voice.voiceId', 'voice_id'],
  ['model', 'system_prompt'],
  ['firstMessage', 'welcome_message'],
  ['transcriber', 'language'],
  ['forwardingPhoneNumber', 'transfer_number'],
  ['server', 'webhook_url'],
];

export const PLATFORM_B_NUMBER_FIELD_PATHS: ReadonlyArray<readonly [string, string]> = [
  ['number', 'phone_number'],
  ['areaCode', 'area_code'],
];

/** Our name as platform_b can hold it; see the header for why this never makes two agents' names equal. */
export function platformBName(name: string, externalId: string): string {
  const characters = Array.from(name);
  if (characters.length <= PLATFORM_B_NAME_LIMIT) return name;
  const digest = createHash('sha256').update(externalId, 'utf8').digest('hex').slice(0, NAME_HASH_LENGTH);
  return `${characters.slice(0, NAME_PREFIX_LENGTH).join('')} ~${digest}`;
}

/** ISO 639-1 from an ISO 639-1 code or a BCP 47 tag. */
export function platformBLanguage(language: string): string {
  return language.split(/[-_]/)[0].toLowerCase();
}

function systemMessages(prompt: string | null): PlatformBAssistantBody['model'] {
  return { messages: prompt === null ? [] : [{ role: 'system', content: prompt }] };
}

/** `externalId` is needed because a long name's shortened form derives from it. */
export function platformBAssistantChanges(changes: PlatformAgentChanges, externalId: string): PlatformBAssistantBody {
  const body: PlatformBAssistantBody = {};
  if (changes.name !== undefined) body.name = platformBName(changes.name, externalId);
  if (changes.voice_id !== undefined) body.voice = { voiceId: changes.voice_id };
  if (changes.language !== undefined) body.transcriber = { language: platformBLanguage(changes.language) };
  if (changes.system_prompt !== undefined) body.model = systemMessages(changes.system_prompt);
  if (changes.welcome_message !== undefined) body.firstMessage = changes.welcome_message;
  if (changes.transfer_number !== undefined) body.forwardingPhoneNumber = changes.transfer_number;
  if (changes.webhook_url !== undefined) body.server = { url: changes.webhook_url };
  return body;
}

export function platformBAssistantBody(spec: PlatformAgentSpec): PlatformBAssistantBody {
  const body = platformBAssistantChanges(spec, spec.external_id);
  if (body.firstMessage === null) delete body.firstMessage;
  if (body.forwardingPhoneNumber === null) delete body.forwardingPhoneNumber;
  body.metadata = { externalId: spec.external_id };
  return body;
}

/**
 * platform_b sells numbers only in a named area (platform_a picks one itself):
 * a purchase without an area code is refused before any call.
 */
export function platformBNumberRequestProblem(request: AcquireNumberRequest): PlatformFailure | undefined {
  if (request.phone_number !== undefined || request.area_code) return undefined;
  return { kind: 'rejected', field: 'area_code', message: 'platform_b sells numbers only in a named area: give an area code' };
}

export function platformBNumberBody(request: AcquireNumberRequest): Record<string, string | null> {
  const body: Record<string, string | null> = { assistantId: request.platform_agent_id };
  if (request.phone_number !== undefined) body.number = request.phone_number;
  else if (request.area_code) body.areaCode = request.area_code;
  return body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function platformBAgentRef(answer: unknown): PlatformAgentRef | undefined {
  return isObject(answer) && typeof answer.id === 'string' && answer.id ? { platform_agent_id: answer.id } : undefined;
}

/** The assistant a search by external id found (metadata checked again, as for platform_a). */
export function platformBAgentFromSearch(answer: unknown, externalId: string): PlatformAgentRef | 'unreadable' | undefined {
  if (!Array.isArray(answer)) return 'unreadable';
  const match = answer.find((item) => isObject(item) && isObject(item.metadata) && item.metadata.externalId === externalId);
  return match === undefined ? undefined : platformBAgentRef(match) ?? 'unreadable';
}

/** platform_b's answer does not say whether the number was bought: the request does. */
export function platformBNumberFromAnswer(answer: unknown, request: AcquireNumberRequest): PlatformNumber | undefined {
  if (!isObject(answer) || typeof answer.id !== 'string' || typeof answer.number !== 'string') return undefined;
  return { phone_number: answer.number, platform_number_id: answer.id, purchased: request.phone_number === undefined };
}

export function platformBErrorMessage(answer: unknown): string {
  if (!isObject(answer)) return '';
  const { message } = answer;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.filter((part): part is string => typeof part === 'string').join('; ');
  return typeof answer.error === 'string' ? answer.error : '';
}

export type PlatformBOperation = 'agent' | 'acquire_number' | 'number';

/** A non-2xx answer of platform_b as our failure; 404 on delete/release is the caller's success, not mapped here. */
export function platformBFailure(
  operation: PlatformBOperation,
  answer: { status: number; json: unknown; retryAfter?: string | string[] },
  now?: number,
): PlatformFailure {
  const { status } = answer;
  const message = platformBErrorMessage(answer.json);
  if (operation === 'acquire_number' && status === 400) {
    // Availability first: "no number available" must not read as "registered" because of other words in it.
    if (saysNoNumberAvailable(message)) return { kind: 'number_unavailable', status, message };
    if (saysNumberAlreadyRegistered(message)) return { kind: 'number_in_use', status, message, field: 'phone_number' };
  }
  const field = fieldMentioned(message, operation === 'agent' ? PLATFORM_B_FIELD_PATHS : PLATFORM_B_NUMBER_FIELD_PATHS);
  return failureForStatus({ status, message, field, retryAfterHeader: answer.retryAfter }, now);
}

/** Our spec as platform_b keeps it: the name within 40 characters, the language as its ISO 639-1 code. */
export function platformBStoredFields(spec: PlatformAgentSpec): StoredAgentFields {
  return {
    name: platformBName(spec.name, spec.external_id),
    system_prompt: spec.system_prompt,
    welcome_message: spec.welcome_message,
    voice_id: spec.voice_id,
    language: platformBLanguage(spec.language),
    transfer_number: spec.transfer_number,
    webhook_url: spec.webhook_url,
  };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The prompt is the first system message (the one we send); none is no prompt. */
function systemPromptOf(model: unknown): string | null {
  if (!isObject(model) || !Array.isArray(model.messages)) return null;
  const system = model.messages.find((message) => isObject(message) && message.role === 'system');
  return isObject(system) ? stringOrNull(system.content) : null;
}

/** An assistant of a listing in our terms, or undefined when it is not an assistant object. */
export function platformBListedAgent(item: unknown): ListedPlatformAgent | undefined {
  const ref = platformBAgentRef(item);
  if (!ref || !isObject(item)) return undefined;
  const nested = (value: unknown, key: string) => (isObject(value) ? stringOrNull(value[key]) : null);
  return {
    ...ref,
    external_id: nested(item.metadata, 'externalId'),
    fields: {
      name: stringOrNull(item.name),
      system_prompt: systemPromptOf(item.model),
      welcome_message: stringOrNull(item.firstMessage),
      voice_id: nested(item.voice, 'voiceId'),
      language: nested(item.transcriber, 'language'),
      transfer_number: stringOrNull(item.forwardingPhoneNumber),
      webhook_url: nested(item.server, 'url'),
    },
  };
}

export function platformBListedNumber(item: unknown): ListedPlatformNumber | undefined {
  if (!isObject(item) || typeof item.id !== 'string' || typeof item.number !== 'string') return undefined;
  return { phone_number: item.number, platform_number_id: item.id, bound_to: stringOrNull(item.assistantId) };
}

/**
 * One page of a listing (a bare array), each item read by `read`. The array carries no cursor: a full page is
 * followed by the one after its last id (`cursorOf`), a shorter one is the last.
 */
export function platformBPage<T>(
  answer: unknown,
  pageSize: number,
  read: (item: unknown) => T | undefined,
  cursorOf: (item: T) => string,
): { items: T[]; next: string | undefined } | 'unreadable' {
  if (!Array.isArray(answer)) return 'unreadable';
  const items = answer.map(read);
  if (items.some((item) => item === undefined)) return 'unreadable';
  const listed = items as T[];
  return { items: listed, next: listed.length >= pageSize && listed.length > 0 ? cursorOf(listed[listed.length - 1]) : undefined };
}
