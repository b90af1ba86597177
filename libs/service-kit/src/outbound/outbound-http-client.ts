/**
 * A small JSON HTTP client for URLs a tenant supplies (their voice platform's
 * base URL). Before every request the host is resolved and every address is
 * checked; the socket then connects to exactly the address that was checked
 * (the check runs inside the socket's own `lookup`), so a DNS answer that
 * changes between check and connect (rebinding) has nothing to slip through.
 * Redirects are never followed: a 3xx could point anywhere, so it is an error.
 * Each request has one deadline for everything (DNS, connect, TLS, the whole
 * response) and a cap on the response size. No retries: the caller owns its
 * retry policy. With `keepAlive`, connections to one origin are kept and reused:
 * each was checked when it connected, and a new one is checked the same way.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import {
  Agent as HttpAgent, request as httpRequest, validateHeaderName, validateHeaderValue, type IncomingHttpHeaders, type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { forbiddenAddressReason } from './address-policy.js';
import {
  bareHostname, checkOutboundUrlSyntax, checkResolvedAddresses, resolveWithSystemDns,
  type HostResolver, type OutboundPolicy,
} from './outbound-url.js';

export type OutboundFailureKind =
  | 'invalid_url'
  | 'forbidden_address'
  | 'unresolvable'
  | 'redirect'
  | 'timeout'
  | 'network'
  | 'response_too_large'
  /** A header (name or value) an HTTP/1.1 message cannot carry; nothing was sent. */
  | 'invalid_header';

export class OutboundRequestFailed extends Error {
  override readonly name = 'OutboundRequestFailed';
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
    readonly details: { status?: number; location?: string; code?: string; header?: string } = {},
  ) {
    super(message);
  }
}

export interface OutboundHttpClientOptions extends OutboundPolicy {
  /** Deadline of one request, connect to last byte. */
  timeoutMs?: number;
  /** Larger responses are abandoned: a tenant's server must not be able to exhaust our memory. */
  maxResponseBytes?: number;
  /** DNS resolution; the system resolver unless a test replaces it. */
  resolve?: HostResolver;
  /**
   * Keeps connections open between requests to one origin (idle ones closed after 4 s, before the 5 s most
   * servers keep them). A reused connection does not resolve the name again: a caller that must check the name's
   * current addresses before every request (outbound webhooks) checks them itself.
   */
  keepAlive?: boolean;
}

/** Idle kept connections are closed after this long: most servers close theirs after 5 s, and a request must not race that. */
const KEEP_ALIVE_IDLE_MS = 4_000;

export type OutboundMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutboundJsonRequest {
  method: OutboundMethod;
  url: string | URL;
  headers?: Record<string, string>;
  /** Sent as JSON when present. */
  body?: unknown;
  /** JSON already serialised, sent byte for byte (a signed body must not be serialised again); instead of `body`. */
  bodyText?: string;
  /** Overrides the client's deadline for this request. */
  timeoutMs?: number;
}

export interface OutboundJsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed body; undefined when it was empty or not JSON (an HTML error page, say). */
  json: unknown;
  text: string;
}

export const OUTBOUND_DEFAULTS = { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 } as const;

/** Joins a base URL that may carry a path ("https://host/api") with an absolute path ("/v2/agents"). */
export function urlUnder(baseUrl: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The socket's DNS step: resolve, refuse if any address is internal, hand the
 * socket the checked addresses only. Node calls this on every new connection.
 */
function checkingLookup(policy: OutboundPolicy, resolve: HostResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolve(hostname).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? resolved.filter((a) => a.family === options.family) : resolved;
        if (wanted.length === 0) {
          callback(new OutboundRequestFailed('unresolvable', `host ${hostname} has no usable address`, { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        const refusal = checkResolvedAddresses(hostname, resolved, policy);
        if (refusal) {
          callback(new OutboundRequestFailed('forbidden_address', `refused to connect: ${refusal}`), '', 0);
          return;
        }
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => {
        callback(new OutboundRequestFailed('unresolvable', `host ${hostname} could not be resolved (${error.code ?? error.message})`, { code: error.code }), '', 0);
      },
    );
  };
}

function asOutboundFailure(error: unknown): OutboundRequestFailed {
  if (error instanceof OutboundRequestFailed) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new OutboundRequestFailed('network', `request failed: ${code ?? (error as Error).message}`, { code });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class OutboundHttpClient {
  private readonly policy: OutboundPolicy;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly lookup: LookupFunction;
  /** With keepAlive: Node's agents pool connections per host and port (each checked when it connected). */
  private readonly agents?: { http: HttpAgent; https: HttpsAgent };

  constructor(options: OutboundHttpClientOptions = {}) {
    this.policy = { allowPrivate: options.allowPrivate ?? false };
    this.timeoutMs = options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? OUTBOUND_DEFAULTS.maxResponseBytes;
    this.lookup = checkingLookup(this.policy, options.resolve ?? resolveWithSystemDns);
    if (options.keepAlive) {
      const pooled = { keepAlive: true, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' as const };
      this.agents = { http: new HttpAgent(pooled), https: new HttpsAgent(pooled) };
    }
  }

  /** Closes the kept connections (keepAlive); requests after it open new ones. */
  close(): void {
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }

  /** Throws OutboundRequestFailed; any non-3xx status is a response, for the caller to interpret. */
  requestJson(request: OutboundJsonRequest): Promise<OutboundJsonResponse> {
    const syntax = checkOutboundUrlSyntax(request.url, this.policy);
    if (!syntax.ok) return Promise.reject(new OutboundRequestFailed(syntax.kind, `URL ${syntax.problem}`));
    const url = syntax.url;
    const payload = request.bodyText !== undefined
      ? Buffer.from(request.bodyText)
      : request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
    const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const unsendable = unsendableHeader(headers);
    if (unsendable) {
      // Node throws synchronously on such a header; the value may be a secret, so only the name is named.
      return Promise.reject(new OutboundRequestFailed('invalid_header', `header ${unsendable} has a character HTTP cannot carry`, { header: unsendable }));
    }
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const agent = this.agents ? (url.protocol === 'https:' ? this.agents.https : this.agents.http) : false;
    return this.exchange(request, url, headers, payload, Date.now() + timeoutMs, agent);
  }

  /**
   * One request and its answer by `deadlineAt`. A kept connection the server closed just before our request
   * reached it (it was idle, and servers close idle connections whenever they like) is not the server's answer:
   * the request is sent once more on a new connection.
   */
  private exchange(
    request: OutboundJsonRequest, url: URL, headers: Record<string, string>, payload: Buffer | undefined, deadlineAt: number, agent: HttpAgent | false,
  ): Promise<OutboundJsonResponse> {
    const timeoutMs = Math.max(0, deadlineAt - Date.now());
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<OutboundJsonResponse>((resolvePromise, rejectPromise) => {
      let settled = false;
      let answered = false;
      const finish = (error: unknown, response?: OutboundJsonResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (error) {
          req.destroy();
          const code = (error as NodeJS.ErrnoException).code;
          if (agent && req.reusedSocket && !answered && (code === 'ECONNRESET' || code === 'EPIPE')) {
            resolvePromise(this.exchange(request, url, headers, payload, deadlineAt, false));
          } else rejectPromise(asOutboundFailure(error));
        } else resolvePromise(response!);
      };
      const req = send({
        protocol: url.protocol,
        hostname: bareHostname(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers,
        lookup: this.lookup,
        // Without keepAlive a fresh connection per request: every request resolves and checks again.
        agent,
      });
      const deadline = setTimeout(
        () => finish(new OutboundRequestFailed('timeout', `no complete answer from ${url.host} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      req.on('socket', (socket: Socket) => {
        if (socket.connecting) socket.once('connect', () => this.checkConnectedPeer(socket, finish));
        else this.checkConnectedPeer(socket, finish);
      });
      req.on('error', (error) => finish(error));
      req.on('response', (res) => {
        answered = true;
        this.readResponse(res, url, finish);
      });
      req.end(payload);
    });
  }

  /** Second line of defence: whatever path led here, the peer must be an allowed address. */
  private checkConnectedPeer(socket: Socket, finish: (error: unknown) => void): void {
    if (this.policy.allowPrivate || !socket.remoteAddress) return;
    const reason = forbiddenAddressReason(socket.remoteAddress);
    if (reason) finish(new OutboundRequestFailed('forbidden_address', `refused to talk to ${socket.remoteAddress}, a ${reason} address`));
  }

  private readResponse(res: IncomingMessage, url: URL, finish: (error: unknown, response?: OutboundJsonResponse) => void): void {
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
      finish(new OutboundRequestFailed('redirect', `${url.host} answered ${status}${location ? ` (to ${location})` : ''}; redirects are not followed`, { status, location }));
      return;
    }
    const tooLarge = () =>
      new OutboundRequestFailed('response_too_large', `the answer from ${url.host} is larger than ${this.maxResponseBytes} bytes`, { status });
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) {
      finish(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > this.maxResponseBytes) finish(tooLarge());
      else chunks.push(chunk);
    });
    res.on('error', (error) => finish(error));
    res.on('close', () => {
      if (!res.complete) finish(new OutboundRequestFailed('network', `${url.host} closed the connection mid-answer`, { status }));
    });
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      finish(undefined, { status, headers: res.headers, json: parseJson(text), text });
    });
  }
}

/** The first header whose name or value Node's HTTP writer would refuse (lower-cased name); undefined when all can be sent. */
export function unsendableHeader(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return name.toLowerCase();
    }
  }
  return undefined;
}
