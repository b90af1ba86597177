import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, readRawBody } from './http-io.js';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The bytes as received: what a signature is computed over. */
  rawBody: string;
  /** `rawBody` parsed, `undefined` when it is not JSON. */
  body: unknown;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  stop(): Promise<void>;
}

export interface WebhookReceiverOptions {
  /** Status of the answer to the n-th request (0-based): 200 for every request by default. */
  statusFor?: (index: number, webhook: ReceivedWebhook) => number;
  /** Answer this much later (ms), to exercise a sender's timeout. */
  delayMs?: number;
}

/**
 * A stand-in for the service's webhook endpoint: records every request and answers as told. For this
 * package's specs and for anyone testing what the simulators send without running the service.
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    void readRawBody(request).then((rawBody) => {
      const webhook: ReceivedWebhook = { path: request.url ?? '/', headers: request.headers, rawBody, body: parseOrUndefined(rawBody), receivedAt: Date.now() };
      const index = received.push(webhook) - 1;
      const status = options.statusFor?.(index, webhook) ?? 200;
      const answer = () => {
        if (!response.destroyed) response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      };
      if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    stop: () => closeServer(server),
  };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
