/**
 * A Server-Sent Events client for GET /v1/conversations/stream: reads frames as they arrive (events and comment
 * lines), waits for a number of events, and is closed by the test. A refusal (not 200) is read whole, as JSON.
 */
import type { OpenApiValidator } from './openapi.js';

export interface StreamEvent {
  id: string;
  event: string;
  data: any;
  receivedAt: number;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** The body of a refusal (not 200). */
  error?: any;
  events: StreamEvent[];
  comments: string[];
  text(): string;
  /** Resolves when the stream ended (the server closed it). */
  ended: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<StreamEvent[]>;
  close(): void;
}

export async function openStream(baseUrl: string, key: string, options: { query?: string; lastEventId?: string } = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const res = await fetch(new URL(`/v1/conversations/stream${options.query ? `?${options.query}` : ''}`, baseUrl), { headers, signal: abort.signal });
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let raw = '';
  const waiters = new Set<() => void>();
  if (res.status !== 200) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, error: JSON.parse(text), events, comments, text: () => text, ended: Promise.resolve(), waitFor: async () => events, close: () => undefined };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        raw += text;
        pending += text;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const fields: Record<string, string[]> = {};
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              (fields[line.slice(0, colon)] ??= []).push(line.slice(colon + 1).replace(/^ /, ''));
            }
          }
          if (fields.data) events.push({ id: fields.id?.[0] ?? '', event: fields.event?.[0] ?? 'message', data: JSON.parse(fields.data.join('\n')), receivedAt: Date.now() });
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // Aborted by the test.
    }
    for (const wake of waiters) wake();
  })();
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    text: () => raw,
    ended,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`stream: ${events.length} of ${count} events after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
      return events;
    },
    close: () => abort.abort(),
  };
}

/**
 * Opens a stream, waits for its opening lines, checks the answer against the document (status, headers, content
 * type, the text read) and closes it: what a checked client does for an answer that never ends.
 */
export async function checkStreamOpens(oa: OpenApiValidator, baseUrl: string, key: string, query?: string): Promise<OpenStream> {
  const stream = await openStream(baseUrl, key, { query });
  if (stream.status === 200) {
    const deadline = Date.now() + 5_000;
    while (!stream.comments.includes('stream open') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }
  stream.close();
  const text = stream.text();
  oa.check('GET', '/v1/conversations/stream', { status: stream.status, headers: stream.headers, body: stream.error ?? text, text });
  return stream;
}
