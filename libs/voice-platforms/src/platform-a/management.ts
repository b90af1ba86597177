/**
 * Our agent ↔ platform_a's management API ("call object" family). Pure: bodies
 * out, answers and errors in, no I/O.
 *
 * Decisions:
 * - Fields map one to one (agent-fields.ts holds the table).
 * - Our agent id is `metadata.external_id`, which platform_a can search by
 *   exactly: that is how an agent created just before a crash is found again.
 * - On create, unset optional fields are left out (platform defaults apply);
 *   on update, a cleared field is sent as null, which platform_a stores as "none".
 * - Errors: `error_message` is the platform's explanation; the first platform
 *   field it mentions is named back as our field. Numbers: 409 on an import is
 *   number_in_use; 422 on a purchase is number_unavailable when its text says
 *   so (or says nothing), because platform_a answers 422 to invalid fields too.
 * - platform_a knows a number by the number itself: it is platform_number_id.
 */
import {
  agentChangesBody, agentCreateBody, agentErrorPaths, agentListedFields, agentStoredFields, stringOrNull,
} from '../agent-fields.js';
import { isPlainObject } from '@voice/contracts';
import type { ManagementDialect, ManagementOperation } from '../management-adapter.js';
import { failureForStatus, fieldMentioned, saysNoNumberAvailable, type PlatformFailure } from '../platform-call-failed.js';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformNumber, StoredAgentFields,
} from '../voice-platform.port.js';
import { PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH, PLATFORM_A_NUMBER_FIELDS } from './agent-fields.js';

export type PlatformAAgentBody = Record<string, unknown>;

/** Platform field paths an error may name, and the fields of ours they hold. */
export const PLATFORM_A_FIELD_PATHS = agentErrorPaths(PLATFORM_A_AGENT_FIELDS);

export const PLATFORM_A_NUMBER_FIELD_PATHS: ReadonlyArray<readonly [string, string]> = [
  [PLATFORM_A_NUMBER_FIELDS.phone_number, 'phone_number'],
  [PLATFORM_A_NUMBER_FIELDS.area_code, 'area_code'],
];

export function platformAAgentChanges(changes: PlatformAgentChanges): PlatformAAgentBody {
  return agentChangesBody(PLATFORM_A_AGENT_FIELDS, changes, '');
}

export function platformAAgentBody(spec: PlatformAgentSpec): PlatformAAgentBody {
  return agentCreateBody(PLATFORM_A_AGENT_FIELDS, spec, PLATFORM_A_EXTERNAL_ID_PATH);
}

export function platformANumberBody(request: AcquireNumberRequest): Record<string, string | null> {
  const body: Record<string, string | null> = { [PLATFORM_A_NUMBER_FIELDS.bound_agent]: request.platform_agent_id };
  if (request.phone_number !== undefined) body[PLATFORM_A_NUMBER_FIELDS.phone_number] = request.phone_number;
  else if (request.area_code) body[PLATFORM_A_NUMBER_FIELDS.area_code] = request.area_code;
  return body;
}

/** The agent object's id, or undefined when the answer is not an agent object. */
export function platformAAgentRef(answer: unknown): PlatformAgentRef | undefined {
  return isPlainObject(answer) && typeof answer.agent_id === 'string' && answer.agent_id ? { platform_agent_id: answer.agent_id } : undefined;
}

/**
 * The agent a search by external id found. The platform matches exactly, but
 * the metadata is checked again so that a platform ignoring the filter cannot
 * make us adopt someone else's agent. Several matches (two creates racing
 * before a crash) → the first; the caller deletes strays if it cares.
 */
export function platformAAgentFromSearch(answer: unknown, externalId: string): PlatformAgentRef | 'unreadable' | undefined {
  if (!isPlainObject(answer) || !Array.isArray(answer.items)) return 'unreadable';
  const match = answer.items.find((item) => isPlainObject(item) && isPlainObject(item.metadata) && item.metadata.external_id === externalId);
  return match === undefined ? undefined : platformAAgentRef(match) ?? 'unreadable';
}

export function platformANumberFromAnswer(answer: unknown, request: AcquireNumberRequest): PlatformNumber | undefined {
  if (!isPlainObject(answer) || typeof answer.phone_number !== 'string') return undefined;
  const purchased = typeof answer.purchased === 'boolean' ? answer.purchased : request.phone_number === undefined;
  return { phone_number: answer.phone_number, platform_number_id: answer.phone_number, purchased };
}

export function platformAErrorMessage(answer: unknown): string {
  if (isPlainObject(answer) && typeof answer.error_message === 'string') return answer.error_message;
  return '';
}

export type PlatformAOperation = ManagementOperation;

export function platformANumberOperation(request: AcquireNumberRequest): PlatformAOperation {
  return request.phone_number !== undefined ? 'import_number' : 'buy_number';
}

/** A non-2xx answer of platform_a as our failure; 404 on delete/release is the caller's success, not mapped here. */
export function platformAFailure(
  operation: PlatformAOperation,
  answer: { status: number; json: unknown; retryAfter?: string | string[] },
  now?: number,
): PlatformFailure {
  const { status } = answer;
  const message = platformAErrorMessage(answer.json);
  if (operation === 'import_number' && status === 409) {
    return { kind: 'number_in_use', status, message: message || 'the number is already registered on platform_a', field: 'phone_number' };
  }
  // 422 is also every validation refusal (area_code not 3 digits, unknown inbound_agent_id): only an
  // explanation saying so, or none at all, means "no number available".
  if (operation === 'buy_number' && status === 422 && (!message || saysNoNumberAvailable(message))) {
    return { kind: 'number_unavailable', status, message: message || 'no number is available in that area' };
  }
  const field = fieldMentioned(message, operation === 'agent' ? PLATFORM_A_FIELD_PATHS : PLATFORM_A_NUMBER_FIELD_PATHS);
  return failureForStatus({ status, message, field, retryAfterHeader: answer.retryAfter }, now);
}

/** platform_a stores our fields as given: the listing shows them back one to one. */
export function platformAStoredFields(spec: PlatformAgentSpec): StoredAgentFields {
  return agentStoredFields(PLATFORM_A_AGENT_FIELDS, spec);
}

/** An agent object of a listing in our terms, or undefined when it is not an agent object. */
export function platformAListedAgent(item: unknown): ListedPlatformAgent | undefined {
  const ref = platformAAgentRef(item);
  if (!ref || !isPlainObject(item)) return undefined;
  return { ...ref, external_id: isPlainObject(item.metadata) ? stringOrNull(item.metadata.external_id) : null, fields: agentListedFields(PLATFORM_A_AGENT_FIELDS, item) };
}

export function platformAListedNumber(item: unknown): ListedPlatformNumber | undefined {
  if (!isPlainObject(item) || typeof item.phone_number !== 'string') return undefined;
  return { phone_number: item.phone_number, platform_number_id: item.phone_number, bound_to: stringOrNull(item.inbound_agent_id) };
}

/** One page of a listing (`{ items, pagination_key? }`), each item read by `read`; 'unreadable' when any is not. */
export function platformAPage<T>(answer: unknown, read: (item: unknown) => T | undefined): { items: T[]; next: string | undefined } | 'unreadable' {
  if (!isPlainObject(answer) || !Array.isArray(answer.items)) return 'unreadable';
  const items = answer.items.map(read);
  if (items.some((item) => item === undefined)) return 'unreadable';
  const next = typeof answer.pagination_key === 'string' && answer.pagination_key !== '' ? answer.pagination_key : undefined;
  return { items: items as T[], next };
}

/** platform_a's management API for the generic adapter. */
export const PLATFORM_A_MANAGEMENT: ManagementDialect = {
  platform: 'platform_a',
  agentNoun: 'agent',
  agentsPath: '/v2/agents',
  numbersPath: '/v2/phone-numbers',
  searchQuery: (externalId) => ({ [PLATFORM_A_EXTERNAL_ID_PATH]: externalId }),
  agentFromSearch: platformAAgentFromSearch,
  agentRef: platformAAgentRef,
  createBody: platformAAgentBody,
  changesBody: (changes) => platformAAgentChanges(changes),
  numberBody: platformANumberBody,
  numberFromAnswer: platformANumberFromAnswer,
  bindBody: (platformAgentId) => ({ [PLATFORM_A_NUMBER_FIELDS.bound_agent]: platformAgentId }),
  failure: platformAFailure,
  storedFields: platformAStoredFields,
  listedAgent: platformAListedAgent,
  listedNumber: platformAListedNumber,
  pageQuery: (cursor): Record<string, string> => (cursor === undefined ? {} : { pagination_key: cursor }),
  page: (answer, _pageSize, read) => platformAPage(answer, read),
};
