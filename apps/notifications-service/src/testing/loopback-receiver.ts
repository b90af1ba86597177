import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on loopback for the delivery tests: notes every request's webhook-id and how many were in
 * flight at once, and answers 204 once `answer` (given the webhook-id) resolves.
 */
export async function startLoopbackReceiver(answer: (webhookId: string) => Promise<void> = async () => undefined) {
  const received: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    req.resume();
    req.on('end', () => {
      const webhookId = String(req.headers['webhook-id']);
      received.push(webhookId);
      void answer(webhookId).then(() => {
        inFlight--;
        res.writeHead(204).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    mostInFlight: () => mostInFlight,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Waits for `done`, polling every 20 ms; fails naming `what` after `timeoutMs`. */
export async function until(what: string, done: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done()); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}
