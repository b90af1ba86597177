/**
 * Our agent's fields and where a platform keeps each: one table per platform
 * (platform-<name>/agent-fields.ts), read by the body builder, the change detector,
 * the error-field mapping and the listing reader, so that the correspondence
 * is written once.
 */
import { isPlainObject } from '@voice/contracts';
import type { PlatformAgentChanges, PlatformAgentSpec, StoredAgentFields } from './voice-platform.port.js';

/** The fields of ours a platform holds; the sync compares and sends exactly these. */
export const AGENT_SPEC_FIELDS = ['name', 'system_prompt', 'welcome_message', 'voice_id', 'language', 'transfer_number', 'webhook_url'] as const;
export type AgentSpecField = (typeof AGENT_SPEC_FIELDS)[number];

export interface AgentFieldPlace {
  /** Where the platform keeps the field: a dotted path into its agent object (`voice.voiceId`). */
  path: string;
  /** The value as the platform holds it (a shortened name, a language code); by default ours as is. `externalId` is our agent id. */
  held?: (value: string, externalId: string) => string;
  /** The held value as it is written at `path`, when it is not the value itself (null is a cleared field). */
  encode?: (held: string | null) => unknown;
  /** The value at `path` of a listed agent, back in our terms; by default a string or null. */
  decode?: (wire: unknown) => string | null;
}

/** Every field of ours and its place on one platform. */
export type AgentFieldTable = { readonly [F in AgentSpecField]: AgentFieldPlace };

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The value at a dotted path, or undefined when the path does not lead there. */
export function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const key of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Sets a value at a dotted path, making the objects on the way. */
export function setAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current = object;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(current[key])) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[keys[keys.length - 1]] = value;
}

function heldValue(place: AgentFieldPlace, value: string | null, externalId: string): string | null {
  return value === null || !place.held ? value : place.held(value, externalId);
}

/** The body of an update: only the given fields, a cleared one as the platform's null. */
export function agentChangesBody(table: AgentFieldTable, changes: PlatformAgentChanges, externalId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of AGENT_SPEC_FIELDS) {
    const value = changes[field];
    if (value === undefined) continue;
    const place = table[field];
    const held = heldValue(place, value, externalId);
    setAt(body, place.path, place.encode ? place.encode(held) : held);
  }
  return body;
}

/** The body of a create: unset optional fields left out (the platform's defaults apply), our id at `externalIdPath`. */
export function agentCreateBody(table: AgentFieldTable, spec: PlatformAgentSpec, externalIdPath: string): Record<string, unknown> {
  const body = agentChangesBody(table, spec, spec.external_id);
  for (const [key, value] of Object.entries(body)) if (value === null) delete body[key];
  setAt(body, externalIdPath, spec.external_id);
  return body;
}

/** Our spec as the platform keeps it, the form a listing shows it back in. */
export function agentStoredFields(table: AgentFieldTable, spec: PlatformAgentSpec): StoredAgentFields {
  const stored = {} as Record<AgentSpecField, string | null>;
  for (const field of AGENT_SPEC_FIELDS) stored[field] = heldValue(table[field], spec[field], spec.external_id);
  return stored as StoredAgentFields;
}

/** A listed agent object's fields in our terms. */
export function agentListedFields(table: AgentFieldTable, item: Record<string, unknown>): StoredAgentFields {
  const fields = {} as Record<AgentSpecField, string | null>;
  for (const field of AGENT_SPEC_FIELDS) {
    const place = table[field];
    const wire = valueAt(item, place.path);
    fields[field] = place.decode ? place.decode(wire) : stringOrNull(wire);
  }
  return fields as StoredAgentFields;
}

/**
 * The platform paths an error text may name, each with our field: every field's path and, for a nested one,
 * the object holding it too (`voice` as well as `voice.voiceId`).
 */
export function agentErrorPaths(table: AgentFieldTable): ReadonlyArray<readonly [string, string]> {
  const paths: Array<readonly [string, string]> = [];
  for (const field of AGENT_SPEC_FIELDS) {
    const { path } = table[field];
    const top = path.split('.')[0];
    if (top !== path) paths.push([top, field]);
    paths.push([path, field]);
  }
  return paths;
}
