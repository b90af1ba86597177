/** What an endpoint may be: its body's validation, its URL's policy and its secret's format. Pure. */
import {
  findCreateWebhookEndpointProblem, findUpdateWebhookEndpointProblem, PAGINATION, WEBHOOK_ENDPOINT_LIMITS,
  type OutboundEventType, type ServiceError, type UpdateWebhookEndpointPayload,
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

/**
 * A create body (url required) or a PATCH body (at least one field): the payload's own rules (the contracts'
 * classes, which the API document is read from), then the URL's policy, then the values as stored (an empty
 * description is none, a type or agent listed twice is kept once).
 */
export function parseEndpointBody(body: unknown, policy: EndpointUrlPolicy, mode: 'create' | 'update'): { fields: EndpointChanges } | { problem: ServiceError } {
  const refused = mode === 'create' ? findCreateWebhookEndpointProblem(body) : findUpdateWebhookEndpointProblem(body);
  if (refused) return { problem: refused };
  const input = body as UpdateWebhookEndpointPayload;
  const fields: EndpointChanges = {};
  if (input.url !== undefined) {
    const checked = checkEndpointUrl(input.url, policy);
    if ('problem' in checked) return checked;
    fields.url = checked.url;
  }
  if (input.description !== undefined) fields.description = input.description === '' ? null : input.description;
  if (input.event_types !== undefined) fields.event_types = input.event_types === null ? null : [...new Set(input.event_types)];
  if (input.agent_ids !== undefined) fields.agent_ids = input.agent_ids === null ? null : [...new Set(input.agent_ids)];
  if (input.enabled !== undefined) fields.enabled = input.enabled;
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
