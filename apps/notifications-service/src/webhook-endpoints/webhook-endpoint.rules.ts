/** What an endpoint may be: its body's validation, its URL's policy and its secret's format. Pure. */
import {
  OUTBOUND_EVENT_TYPES, PAGINATION, WEBHOOK_ENDPOINT_LIMITS, charCount, type OutboundEventType, type ServiceError,
} from '@voice/contracts';
import { forbiddenAddressReason } from '@voice/service-kit';
import { isIP } from 'node:net';

export interface EndpointUrlPolicy {
  /** ALLOW_PRIVATE_WEBHOOK_URLS=true: http, loopback and private addresses are allowed (zero-setup, tests). */
  allowPrivate: boolean;
}

export interface EndpointFields {
  url: string;
  description: string | null;
  event_types: OutboundEventType[] | null;
  agent_ids: string[] | null;
  enabled: boolean;
}

export type EndpointChanges = Partial<EndpointFields>;

const WRITABLE = ['url', 'description', 'event_types', 'agent_ids', 'enabled'] as const;

/** Addresses refused whatever the setting: link-local (169.254.169.254, the cloud metadata service) and the like. */
const ALWAYS_FORBIDDEN = /link-local|unspecified|multicast|reserved|broadcast/;

const problem = (code: ServiceError['code'], field: string, message: string, extra: Partial<ServiceError> = {}): { problem: ServiceError } => ({
  problem: { code, field, message, ...extra },
});

/** Why an address must not receive deliveries, or undefined. Applied to the URL's literal host and to every address DNS gives. */
export function refusedAddress(address: string, policy: EndpointUrlPolicy): string | undefined {
  const reason = forbiddenAddressReason(address);
  if (!reason || reason === 'not an IP address') return undefined;
  if (ALWAYS_FORBIDDEN.test(reason) || !policy.allowPrivate) return `${address} is a ${reason} address`;
  return undefined;
}

/** The URL checks that need no DNS. */
export function checkEndpointUrl(value: unknown, policy: EndpointUrlPolicy): { url: string } | { problem: ServiceError } {
  if (typeof value !== 'string' || value.trim() === '') return problem('invalid_parameter', 'url', 'url must be an absolute https URL.');
  if (value.length > WEBHOOK_ENDPOINT_LIMITS.urlLength) {
    return problem('invalid_parameter', 'url', `url must be at most ${WEBHOOK_ENDPOINT_LIMITS.urlLength} characters.`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem('invalid_parameter', 'url', 'url must be an absolute https URL.');
  }
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return problem('invalid_parameter', 'url', `url must be an ${policy.allowPrivate ? 'http or https' : 'https'} URL.`);
  if (url.username || url.password) return problem('invalid_parameter', 'url', 'url must not contain a user name or password.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!policy.allowPrivate && (name === 'localhost' || name.endsWith('.localhost'))) {
    return problem('invalid_parameter', 'url', `url must not point at this machine (${host}).`);
  }
  if (isIP(host)) {
    const refusal = refusedAddress(host, policy);
    if (refusal) return problem('invalid_parameter', 'url', `url must not point at an internal address: ${refusal}.`);
  }
  return { url: url.toString() };
}

function checkStringList(field: string, value: unknown, max: number): string[] | { problem: ServiceError } {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    return problem('invalid_parameter', field, `${field} must be an array of non-empty strings.`);
  }
  if (value.length === 0 || value.length > max) return problem('invalid_parameter', field, `${field} must hold 1 to ${max} items (omit it or send null for all).`);
  return [...new Set(value as string[])];
}

/** A create body (every field but url optional) or a PATCH body (every field optional, at least one). */
export function parseEndpointBody(body: unknown, policy: EndpointUrlPolicy, mode: 'create' | 'update'): { fields: EndpointChanges } | { problem: ServiceError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { problem: { code: 'invalid_request', message: 'The body must be a JSON object.' } };
  }
  const input = body as Record<string, unknown>;
  const unknown = Object.keys(input).find((key) => !(WRITABLE as readonly string[]).includes(key));
  if (unknown) return problem('invalid_parameter', unknown, `${unknown} is not a field of a webhook endpoint (fields: ${WRITABLE.join(', ')}).`);
  const fields: EndpointChanges = {};
  if (input.url === undefined) {
    if (mode === 'create') return problem('missing_required_field', 'url', 'url is required.');
  } else {
    const checked = checkEndpointUrl(input.url, policy);
    if ('problem' in checked) return checked;
    fields.url = checked.url;
  }
  if (input.description !== undefined) {
    if (input.description !== null && typeof input.description !== 'string') return problem('invalid_parameter', 'description', 'description must be a string or null.');
    if (typeof input.description === 'string' && charCount(input.description) > WEBHOOK_ENDPOINT_LIMITS.description) {
      return problem('invalid_parameter', 'description', `description must be at most ${WEBHOOK_ENDPOINT_LIMITS.description} characters.`);
    }
    fields.description = input.description === '' ? null : (input.description as string | null);
  }
  if (input.event_types !== undefined) {
    if (input.event_types === null) fields.event_types = null;
    else {
      const list = checkStringList('event_types', input.event_types, OUTBOUND_EVENT_TYPES.length);
      if ('problem' in list) return list;
      const unknownType = list.find((type) => !(OUTBOUND_EVENT_TYPES as readonly string[]).includes(type));
      if (unknownType) {
        return problem('invalid_parameter', 'event_types', `${unknownType} is not an event type.`, { valid_values: [...OUTBOUND_EVENT_TYPES] });
      }
      fields.event_types = list as OutboundEventType[];
    }
  }
  if (input.agent_ids !== undefined) {
    if (input.agent_ids === null) fields.agent_ids = null;
    else {
      const list = checkStringList('agent_ids', input.agent_ids, WEBHOOK_ENDPOINT_LIMITS.agentIds);
      if ('problem' in list) return list;
      fields.agent_ids = list;
    }
  }
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') return problem('invalid_parameter', 'enabled', 'enabled must be true or false.');
    fields.enabled = input.enabled;
  }
  if (mode === 'update' && Object.keys(fields).length === 0) {
    return { problem: { code: 'invalid_request', message: `The body changes nothing: give at least one of ${WRITABLE.join(', ')}.` } };
  }
  return { fields };
}

/** The 21st endpoint of an account is refused. */
export function endpointQuotaProblem(current: number): ServiceError | undefined {
  const limit = WEBHOOK_ENDPOINT_LIMITS.perAccount;
  if (current < limit) return undefined;
  return { code: 'quota_exceeded', message: `An account has at most ${limit} webhook endpoints.`, limit, current };
}

/** Standard Webhooks secret: `whsec_` + base64 of the key bytes (24 to 64; we use 32). */
export function formatSigningSecret(key: Uint8Array): string {
  return `whsec_${Buffer.from(key).toString('base64')}`;
}

/** Ids in the house style (`agt_…`): the prefix says what an id is; anything else is simply not found. */
export const ENDPOINT_ID = /^we_[0-9a-f]{24}$/;

/** page/per_page of the endpoints list, like every list of the API; anything else is refused. */
export function parseEndpointListQuery(query: Record<string, unknown> = {}): { page: number; per_page: number } | { problem: ServiceError } {
  const params: { page: number; per_page: number } = { page: 1, per_page: PAGINATION.defaultPerPage };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (name !== 'page' && name !== 'per_page') return problem('invalid_parameter', name, `${name} is not a parameter of this list (parameters: page, per_page).`);
    const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : 0;
    if (n < 1) return problem('invalid_parameter', name, name === 'page' ? 'page must be an integer of at least 1.' : `per_page must be an integer from 1 to ${PAGINATION.maxPerPage}.`);
    params[name] = name === 'per_page' ? Math.min(n, PAGINATION.maxPerPage) : n;
  }
  return params;
}

/** The secrets that sign a delivery now: the current one first, then the previous one while its overlap lasts. */
export function signingSecrets(current: string, previous: { secret: string; expiresAt: Date } | undefined, now: Date): string[] {
  return previous && previous.expiresAt.getTime() > now.getTime() ? [current, previous.secret] : [current];
}
