/**
 * Checks of a tenant-supplied URL, usable when the URL is entered (to refuse it
 * with a field error) and again by the HTTP client before every request.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { forbiddenAddressReason } from './address-policy.js';

export interface OutboundPolicy {
  /**
   * Lets requests reach private, loopback and other internal addresses. Only for
   * an operator who runs the platforms inside their own network (or tests with
   * local simulators): the operator's ALLOW_PRIVATE_PLATFORM_URLS=true.
   */
  allowPrivate?: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has; replaceable in tests. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const resolveWithSystemDns: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export type OutboundUrlProblemKind = 'invalid_url' | 'forbidden_address' | 'unresolvable';

export type OutboundUrlCheck =
  | { ok: true; url: URL; addresses: ResolvedAddress[] }
  | { ok: false; kind: OutboundUrlProblemKind; problem: string };

export type OutboundUrlSyntaxCheck = { ok: true; url: URL } | { ok: false; kind: 'invalid_url' | 'forbidden_address'; problem: string };

/** The host as DNS or the socket wants it: IPv6 literals lose their brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** RFC 6761: every *.localhost name is loopback, whatever a resolver answers. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What can be said without DNS: an absolute http(s) URL without credentials in
 * it, and, when the host is an IP literal or a localhost name, an allowed one.
 * The URL parser has already turned "0x7f.1" or "2130706433" into 127.0.0.1.
 */
export function checkOutboundUrlSyntax(raw: string | URL, policy: OutboundPolicy = {}): OutboundUrlSyntaxCheck {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    return { ok: false, kind: 'invalid_url', problem: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, kind: 'invalid_url', problem: `must be an http or https URL (got ${url.protocol.replace(/:$/, '')})` };
  }
  if (!url.hostname) return { ok: false, kind: 'invalid_url', problem: 'must name a host' };
  // Credentials travel in headers; a user:password@ part would be sent in clear to whatever the host is.
  if (url.username || url.password) return { ok: false, kind: 'invalid_url', problem: 'must not contain a user name or password' };
  if (policy.allowPrivate) return { ok: true, url };
  const host = bareHostname(url);
  if (isLocalhostName(host)) return { ok: false, kind: 'forbidden_address', problem: `must not point at this machine (${host})` };
  if (isIP(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) return { ok: false, kind: 'forbidden_address', problem: `must not point at a ${reason} address` };
  }
  return { ok: true, url };
}

/** Judges every address a name resolved to: one internal address is enough to refuse the name. */
export function checkResolvedAddresses(hostname: string, addresses: readonly ResolvedAddress[], policy: OutboundPolicy = {}): string | undefined {
  if (policy.allowPrivate) return undefined;
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) return `${hostname} resolves to ${address}, a ${reason} address`;
  }
  return undefined;
}

/**
 * Full check of a URL, DNS included. At input time this catches a platform URL
 * that points inside the network; it is no guarantee for later requests (DNS can
 * change), which is why the client checks again on every request.
 */
export async function checkOutboundUrl(
  raw: string | URL,
  policy: OutboundPolicy = {},
  resolve: HostResolver = resolveWithSystemDns,
): Promise<OutboundUrlCheck> {
  const syntax = checkOutboundUrlSyntax(raw, policy);
  if (!syntax.ok) return syntax;
  const host = bareHostname(syntax.url);
  if (isIP(host)) return { ok: true, url: syntax.url, addresses: [{ address: host, family: isIP(host) }] };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, kind: 'unresolvable', problem: `host ${host} could not be resolved (${code})` };
  }
  if (addresses.length === 0) return { ok: false, kind: 'unresolvable', problem: `host ${host} has no address` };
  const refusal = checkResolvedAddresses(host, addresses, policy);
  if (refusal) return { ok: false, kind: 'forbidden_address', problem: `must not point at an internal address: ${refusal}` };
  return { ok: true, url: syntax.url, addresses };
}
