/**
 * Slow clients cannot hold the gateway's sockets: headers that do not arrive in time and requests that drag on
 * are answered 408 and closed, while an idle keep-alive connection is still served. Run with short limits so
 * the test is quick; the production limits are HTTP_TIMEOUTS.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InProcessBus, InProcessStreams } from '@voice/service-kit';
import net from 'node:net';
import { HTTP_TIMEOUTS, startGateway, type RunningGateway } from '../apps/api-gateway/src/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

/** Opens a socket, runs `talk`, and resolves with what came back and when the server closed it. */
function converse(port: number, talk: (socket: net.Socket) => void, giveUpMs = 15_000): Promise<{ received: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => talk(socket));
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
  });
}

describe('slow clients', () => {
  let db: TestDatabase;
  let gateway: RunningGateway;
  let port: number;

  beforeAll(async () => {
    db = await createTestDatabase('slowclients');
    gateway = await startGateway({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: db.url,
      local: { rpc: new InProcessBus(), streams: new InProcessStreams() },
      httpTimeouts: { headersMs: 1_000, requestMs: 3_000, checkEveryMs: 200 },
    });
    port = Number(new URL(gateway.url).port);
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
  });

  it('production limits: headers within 10 s, a whole request within 60 s, checked every second', () => {
    expect(HTTP_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 60_000, checkEveryMs: 1_000 });
  });

  it('answers 408 and closes a connection whose headers trickle in (one header line every 200 ms)', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const { received, closedAfterMs } = await converse(port, (socket) => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      trickle = setInterval(() => socket.write(`X-Slow: ${Date.now()}\r\n`), 200);
    });
    clearInterval(trickle);
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { type: 'invalid_request', code: 'request_timeout' } });
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('answers 408 and closes a request whose body drags on past the request limit', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const { received, closedAfterMs } = await converse(port, (socket) => {
      socket.write('POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
      trickle = setInterval(() => socket.write(' '), 200);
    });
    clearInterval(trickle);
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(closedAfterMs).toBeLessThan(7_000);
  });

  it('still serves an idle keep-alive connection after longer than the headers limit', async () => {
    const { received } = await converse(port, (socket) => {
      socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
      setTimeout(() => socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 2_000);
    });
    // A response body does not end with a line break: the next status line follows it directly.
    expect(received.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+\r\n/g)).toEqual(['HTTP/1.1 200 OK\r\n', 'HTTP/1.1 200 OK\r\n']);
  });
});
