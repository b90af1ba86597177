/**
 * The HTTP step both adapters share: one call through the SSRF-safe client with
 * the account's key, a deadline, and every transport failure turned into a
 * PlatformCallFailed. No retries here (see voice-platform.port.ts).
 */
import type { VoicePlatform } from '@voice/contracts';
import { OutboundHttpClient, OutboundRequestFailed, urlUnder, type HostResolver, type OutboundMethod } from '@voice/service-kit';
import { PlatformCallFailed, type PlatformFailure } from './platform-call-failed.js';
import type { PlatformConnection } from './voice-platform.port.js';

export interface PlatformHttpOptions {
  /** The operator's ALLOW_PRIVATE_PLATFORM_URLS: platforms inside our own network (or local simulators). */
  allowPrivate?: boolean;
  /** Deadline of one platform call, connect to last byte. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** DNS resolution; replaceable in tests. */
  resolve?: HostResolver;
}

export const PLATFORM_CALL_TIMEOUT_MS = 5_000;
/** Management answers are single objects or short lists; anything near this is not one of them. */
export const PLATFORM_MAX_RESPONSE_BYTES = 1024 * 1024;
/**
 * Agents per listing page: a page of agents at their largest (a 32,000-character prompt of 4-byte characters is
 * 128 KB) stays under LISTING_MAX_RESPONSE_BYTES, and 100 agents are 4 calls.
 */
export const LISTING_PAGE_SIZE = 25;
export const LISTING_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** A listing that has not ended after this many pages is a platform ignoring our cursor: refused rather than looped on. */
export const LISTING_MAX_PAGES = 2_000;

export interface PlatformAnswer {
  status: number;
  json: unknown;
  retryAfter?: string | string[];
}

/** Why a call that got no usable HTTP answer failed, in the adapters' terms. */
export function failureForTransport(error: OutboundRequestFailed): PlatformFailure {
  switch (error.kind) {
    case 'invalid_url':
    case 'forbidden_address':
      return { kind: 'base_url_refused', field: 'base_url', message: `the platform base URL is refused: ${error.message}` };
    case 'redirect':
      // A management API that redirects is configured under another URL: following would also be the SSRF hole.
      return { kind: 'base_url_refused', field: 'base_url', status: error.details.status, message: `${error.message}; configure the URL it redirects to` };
    case 'timeout':
    case 'network':
    case 'unresolvable':
    case 'response_too_large':
      return { kind: 'transient', message: error.message };
    case 'invalid_header':
      // The only header carrying an account's data is the key's Authorization; a key saved before its
      // characters were checked gets here, and no platform could ever accept it.
      return {
        kind: 'invalid_credentials',
        field: 'api_key',
        message: 'the stored API key has characters an HTTP header cannot carry (control characters, line breaks or letters beyond Latin-1); replace it with PUT /v1/integrations/{platform}',
      };
  }
}

export class PlatformHttp {
  private readonly client: OutboundHttpClient;

  constructor(readonly platform: VoicePlatform, options: PlatformHttpOptions = {}) {
    this.client = new OutboundHttpClient({
      allowPrivate: options.allowPrivate ?? false,
      timeoutMs: options.timeoutMs ?? PLATFORM_CALL_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? PLATFORM_MAX_RESPONSE_BYTES,
      resolve: options.resolve,
    });
  }

  /** Any HTTP status is an answer; only transport failures throw (as PlatformCallFailed). */
  async send(
    connection: PlatformConnection,
    method: OutboundMethod,
    path: string,
    options: { body?: unknown; query?: Record<string, string> } = {},
  ): Promise<PlatformAnswer> {
    let url: URL;
    try {
      url = urlUnder(connection.baseUrl, path, options.query);
    } catch {
      throw this.failed({ kind: 'base_url_refused', field: 'base_url', message: 'the platform base URL is not an absolute URL' });
    }
    const authorization = `Bearer ${connection.apiKey}`;
    try {
      const response = await this.client.requestJson({
        method,
        url,
        headers: { authorization },
        body: options.body,
      });
      return { status: response.status, json: response.json, retryAfter: response.headers['retry-after'] };
    } catch (error) {
      if (error instanceof OutboundRequestFailed) throw this.failed(failureForTransport(error));
      throw error;
    }
  }

  failed(failure: PlatformFailure): PlatformCallFailed {
    return new PlatformCallFailed(this.platform, failure);
  }

  /** A 2xx whose body is not what the platform documents: treated as a glitch worth retrying. */
  unexpectedAnswer(what: string, answer: PlatformAnswer): PlatformCallFailed {
    return this.failed({ kind: 'transient', status: answer.status, message: `unexpected answer to ${what} (status ${answer.status})` });
  }
}

/** Options of the client that reads listings: pages of whole agents are larger than any other answer. */
export function listingHttpOptions(options: PlatformHttpOptions): PlatformHttpOptions {
  return { ...options, maxResponseBytes: Math.max(options.maxResponseBytes ?? 0, LISTING_MAX_RESPONSE_BYTES) };
}

/**
 * Reads a listing page by page: `readPage(cursor)` answers a page and the next cursor (undefined on the last page).
 * A cursor seen before, or too many pages, means the platform ignores our paging: a transient failure, never a loop.
 */
export async function readAllPages<T>(
  http: PlatformHttp,
  what: string,
  readPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < LISTING_MAX_PAGES; pages++) {
    const page = await readPage(cursor);
    all.push(...page.items);
    if (page.next === undefined) return all;
    if (seen.has(page.next)) break;
    seen.add(page.next);
    cursor = page.next;
  }
  throw http.failed({ kind: 'transient', message: `the ${what} listing does not end: the platform ignores its paging` });
}

export function isSuccess(answer: PlatformAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** One path segment, escaped: E.164's "+" and any id the platform hands out stay inside their segment. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
