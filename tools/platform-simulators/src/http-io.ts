import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a route answers; the server writes it (after the configured delay) and logs its status. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request as the routes see it: the path split into segments, the query parsed, the body parsed once. */
export interface SimulatorRequest {
  method: string;
  path: string;
  segments: string[];
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** `undefined` when the body is empty; `INVALID_JSON` when it is not JSON. */
  body: unknown;
}

export const INVALID_JSON = Symbol('invalid JSON');

export function readRawBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function toSimulatorRequest(request: IncomingMessage): Promise<SimulatorRequest> {
  const url = new URL(request.url ?? '/', 'http://simulator.local');
  const rawBody = await readRawBody(request);
  let body: unknown;
  if (rawBody.trim() !== '') {
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = INVALID_JSON;
    }
  }
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    // Phone numbers travel in paths as `+1415…` or `%2B1415…`; both name the same number.
    segments: url.pathname.split('/').filter((segment) => segment !== '').map(decodeSegment),
    query: url.searchParams,
    headers: request.headers,
    rawBody,
    body,
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function writeReply(response: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body === undefined) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  const payload = JSON.stringify(reply.body);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = String(Buffer.byteLength(payload));
  response.writeHead(reply.status, headers).end(payload);
}

export function bearerKey(headers: IncomingMessage['headers']): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Stops listening and ends open connections too (keep-alive ones would otherwise hold `close` back). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
