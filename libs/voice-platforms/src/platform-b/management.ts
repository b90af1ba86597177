/**
 * Our agent ↔ platform_b's management API ("message envelope" family). Pure:
 * bodies out, answers and errors in, no I/O.
 *
 * Decisions:
 * - Fields: agent-fields.ts holds the table and the forms (a name within 40
 *   characters, the language as ISO 639-1, the prompt as the one system message).
 *   The name is display only there: we find agents by our id, never by name.
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
import {
  agentChangesBody, agentCreateBody, agentErrorPaths, agentListedFields, agentStoredFields, stringOrNull,
} from '../agent-fields.js';
import { isPlainObject } from '@voice/contracts';
import type { ManagementDialect, ManagementOperation } from '../management-adapter.js';
import { failureForStatus, fieldMentioned, saysNoNumberAvailable, saysNumberAlreadyRegistered, type PlatformFailure } from '../platform-call-failed.js';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformNumber, StoredAgentFields,
} from '../voice-platform.port.js';
import { PLATFORM_B_AGENT_FIELDS, PLATFORM_B_EXTERNAL_ID_PATH, PLATFORM_B_NUMBER_FIELDS } from './agent-fields.js';

export { PLATFORM_B_NAME_LIMIT, platformBLanguage, platformBName } from './agent-fields.js';

export type PlatformBAssistantBody = Record<string, unknown>;

/** Platform field paths an error may name, and the fields of ours they hold. */
export const PLATFORM_B_FIELD_PATHS = agentErrorPaths(PLATFORM_B_AGENT_FIELDS);

export const PLATFORM_B_NUMBER_FIELD_PATHS: ReadonlyArray<readonly [string, string]> = [
  [PLATFORM_B_NUMBER_FIELDS.phone_number, 'phone_number'],
  [PLATFORM_B_NUMBER_FIELDS.area_code, 'area_code'],
];

/** `externalId` is needed because a long name's shortened form derives from it. */
export function platformBAssistantChanges(changes: PlatformAgentChanges, externalId: string): PlatformBAssistantBody {
  return agentChangesBody(PLATFORM_B_AGENT_FIELDS, changes, externalId);
}

export function platformBAssistantBody(spec: PlatformAgentSpec): PlatformBAssistantBody {
  return agentCreateBody(PLATFORM_B_AGENT_FIELDS, spec, PLATFORM_B_EXTERNAL_ID_PATH);
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
  const body: Record<string, string | null> = { [PLATFORM_B_NUMBER_FIELDS.bound_agent]: request.platform_agent_id };
  if (request.phone_number !== undefined) body[PLATFORM_B_NUMBER_FIELDS.phone_number] = request.phone_number;
  else if (request.area_code) body[PLATFORM_B_NUMBER_FIELDS.area_code] = request.area_code;
  return body;
}

export function platformBAgentRef(answer: unknown): PlatformAgentRef | undefined {
  return isPlainObject(answer) && typeof answer.id === 'string' && answer.id ? { platform_agent_id: answer.id } : undefined;
}

/** The assistant a search by external id found (metadata checked again, as for platform_a). */
export function platformBAgentFromSearch(answer: unknown, externalId: string): PlatformAgentRef | 'unreadable' | undefined {
  if (!Array.isArray(answer)) return 'unreadable';
  const match = answer.find((item) => isPlainObject(item) && isPlainObject(item.metadata) && item.metadata.externalId === externalId);
  return match === undefined ? undefined : platformBAgentRef(match) ?? 'unreadable';
}

/** platform_b's answer does not say whether the number was bought: the request does. */
export function platformBNumberFromAnswer(answer: unknown, request: AcquireNumberRequest): PlatformNumber | undefined {
  if (!isPlainObject(answer) || typeof answer.id !== 'string' || typeof answer.number !== 'string') return undefined;
  return { phone_number: answer.number, platform_number_id: answer.id, purchased: request.phone_number === undefined };
}

export function platformBErrorMessage(answer: unknown): string {
  if (!isPlainObject(answer)) return '';
  const { message } = answer;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.filter((part): part is string => typeof part === 'string').join('; ');
  return typeof answer.error === 'string' ? answer.error : '';
}

export type PlatformBOperation = 'agent' | 'acquire_number' | 'number';

function platformBOperation(operation: ManagementOperation): PlatformBOperation {
  return operation === 'buy_number' || operation === 'import_number' ? 'acquire_number' : operation;
}

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
  return agentStoredFields(PLATFORM_B_AGENT_FIELDS, spec);
}

/** An assistant of a listing in our terms, or undefined when it is not an assistant object. */
export function platformBListedAgent(item: unknown): ListedPlatformAgent | undefined {
  const ref = platformBAgentRef(item);
  if (!ref || !isPlainObject(item)) return undefined;
  const externalId = isPlainObject(item.metadata) ? stringOrNull(item.metadata.externalId) : null;
  return { ...ref, external_id: externalId, fields: agentListedFields(PLATFORM_B_AGENT_FIELDS, item) };
}

export function platformBListedNumber(item: unknown): ListedPlatformNumber | undefined {
  if (!isPlainObject(item) || typeof item.id !== 'string' || typeof item.number !== 'string') return undefined;
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

/** platform_b's management API for the generic adapter. */
export const PLATFORM_B_MANAGEMENT: ManagementDialect = {
  platform: 'platform_b',
  agentNoun: 'assistant',
  agentsPath: '/assistant',
  numbersPath: '/phone-number',
  searchQuery: (externalId) => ({ externalId }),
  agentFromSearch: platformBAgentFromSearch,
  agentRef: platformBAgentRef,
  createBody: platformBAssistantBody,
  changesBody: platformBAssistantChanges,
  numberRequestProblem: platformBNumberRequestProblem,
  numberBody: platformBNumberBody,
  numberFromAnswer: platformBNumberFromAnswer,
  bindBody: (platformAgentId) => ({ [PLATFORM_B_NUMBER_FIELDS.bound_agent]: platformAgentId }),
  failure: (operation, answer, now) => platformBFailure(platformBOperation(operation), answer, now),
  storedFields: platformBStoredFields,
  listedAgent: platformBListedAgent,
  listedNumber: platformBListedNumber,
  pageQuery: (cursor): Record<string, string> => (cursor === undefined ? {} : { after: cursor }),
  page: platformBPage,
};
