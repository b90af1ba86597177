import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, and whether its signature verified (standardwebhooks) with the secret it held then. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

export interface WebhookReceiver {
  url: string;
  /** The secret later requests are verified with (an endpoint's secret is often only known once it is created). */
  useSecret(secret: string): void;
  close(): Promise<void>;
}

/**
 * An endpoint on loopback for outbound webhooks: verifies every request's Standard Webhooks signature, hands it
 * to `onRequest` and answers with the status (and body) that returns.
 */
export async function startWebhookReceiver(options: {
  path: string;
  secret?: string;
  onRequest: (request: ReceivedWebhook) => { status: number; body?: string };
}): Promise<WebhookReceiver> {
  let secret = options.secret ?? '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const answer = options.onRequest({ headers: req.headers, body, verified });
      res.writeHead(answer.status).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.path}`,
    useSecret: (value) => void (secret = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
