/** Test-only helpers of this package's specs (excluded from the build). */
import { connect } from 'node:net';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, `undefined` for an empty body. */
  body: any;
}

/** One HTTP request as a client of the platform sends it. */
export async function send(baseUrl: string, method: string, path: string, options: { key?: string | null; body?: unknown; rawBody?: string } = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? 'sim-api-key'}`;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** The network error code behind a failed fetch (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, …). */
export async function networkFailure(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? String(error);
  }
  throw new Error('expected the request to fail at the network level, but it got an answer');
}

export function repeat(character: string, count: number): string {
  return character.repeat(count);
}

/** The error code of a fresh TCP connection to the URL's port, or `connected` (independent of any client's pooled sockets). */
export function tcpConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
