import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttpClient, OutboundRequestFailed, urlUnder } from './outbound-http-client.js';
import type { HostResolver } from './outbound-url.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One local server whose behaviour each request picks by path. */
const routes: Record<string, Handler> = {
  '/echo': (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, host: req.headers.host, auth: req.headers.authorization, body: body ? JSON.parse(body) : null }));
    });
  },
  '/redirect': (_req, res) => {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
    res.end();
  },
  '/never-answers': () => {},
  '/stalls-mid-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"items": [');
  },
  '/cut-mid-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"items": [', () => res.socket?.destroy());
  },
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ blob: 'x'.repeat(10_000) }));
  },
  '/huge-chunked': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 10; i++) res.write('x'.repeat(1000));
    res.end();
  },
  '/html-error': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html>Bad gateway</html>');
  },
};

let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(promise: Promise<unknown>): Promise<OutboundRequestFailed> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRequestFailed);
  return error as OutboundRequestFailed;
}

const resolvingTo =
  (address: string, calls: string[] = []): HostResolver =>
  async (hostname) => {
    calls.push(hostname);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

describe('OutboundHttpClient refusals (default policy)', () => {
  const client = new OutboundHttpClient({ timeoutMs: 2000 });

  it.each([
    'http://127.0.0.1:PORT/echo',
    'http://[::1]:PORT/echo',
    'http://[::ffff:127.0.0.1]:PORT/echo',
    'http://localhost:PORT/echo',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
    'http://0.0.0.0:PORT/echo',
  ])('refuses %s without connecting', async (url) => {
    const error = await failure(client.requestJson({ method: 'GET', url: url.replace('PORT', String(port)) }));
    expect(error.kind).toBe('forbidden_address');
  });

  it('refuses a name that resolves to 127.0.0.1, at the socket’s own lookup', async () => {
    const calls: string[] = [];
    const resolving = new OutboundHttpClient({ timeoutMs: 2000, resolve: resolvingTo('127.0.0.1', calls) });
    const error = await failure(resolving.requestJson({ method: 'GET', url: `http://platform.test:${port}/echo` }));
    expect(error.kind).toBe('forbidden_address');
    expect(error.message).toContain('127.0.0.1');
    expect(calls).toEqual(['platform.test']);
  });

  it.each(['::ffff:10.1.2.3', 'fe80::1', '100.64.0.1', '169.254.169.254'])('refuses a name that resolves to %s', async (address) => {
    const resolving = new OutboundHttpClient({ timeoutMs: 2000, resolve: resolvingTo(address) });
    expect((await failure(resolving.requestJson({ method: 'GET', url: 'http://platform.test/' }))).kind).toBe('forbidden_address');
  });

  it('resolves again on every request, so a name that later points inside is refused', async () => {
    const calls: string[] = [];
    // 192.0.2.1 (TEST-NET-1) passes the policy and leads nowhere: the first request fails, but not by refusal.
    let answer = '192.0.2.1';
    const rebinding = new OutboundHttpClient({
      timeoutMs: 300,
      resolve: async (hostname) => {
        calls.push(hostname);
        return [{ address: answer, family: 4 }];
      },
    });
    const first = await failure(rebinding.requestJson({ method: 'GET', url: 'http://platform.test/' }));
    expect(['timeout', 'network']).toContain(first.kind);
    answer = '10.0.0.7';
    const second = await failure(rebinding.requestJson({ method: 'GET', url: 'http://platform.test/' }));
    expect(second.message).toContain('10.0.0.7');
    expect(calls).toEqual(['platform.test', 'platform.test']);
  });

  it('reports a name that does not resolve', async () => {
    const failing = new OutboundHttpClient({
      resolve: async () => {
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    expect((await failure(failing.requestJson({ method: 'GET', url: 'http://nowhere.test/' }))).kind).toBe('unresolvable');
  });

  it('refuses a non-http URL', async () => {
    expect((await failure(client.requestJson({ method: 'GET', url: 'file:///etc/passwd' }))).kind).toBe('invalid_url');
  });
});

describe('OutboundHttpClient with allowPrivate (a local server on 127.0.0.1)', () => {
  const client = new OutboundHttpClient({ allowPrivate: true, timeoutMs: 2000, maxResponseBytes: 4096 });

  it('sends JSON and reads JSON', async () => {
    const response = await client.requestJson({ method: 'POST', url: `${base}/echo`, headers: { authorization: 'Bearer k' }, body: { a: 1 } });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ method: 'POST', host: `127.0.0.1:${port}`, auth: 'Bearer k', body: { a: 1 } });
  });

  it('connects to the address its lookup checked, keeping the name in the Host header', async () => {
    const named = new OutboundHttpClient({ allowPrivate: true, timeoutMs: 2000, resolve: resolvingTo('127.0.0.1') });
    const response = await named.requestJson({ method: 'GET', url: `http://platform.test:${port}/echo` });
    expect(response.json).toMatchObject({ host: `platform.test:${port}` });
  });

  it('returns a redirect as an error and does not follow it', async () => {
    const error = await failure(client.requestJson({ method: 'GET', url: `${base}/redirect` }));
    expect(error.kind).toBe('redirect');
    expect(error.details).toEqual({ status: 302, location: 'http://169.254.169.254/latest/meta-data' });
  });

  it('gives up when no answer comes within the deadline', async () => {
    const started = Date.now();
    const error = await failure(client.requestJson({ method: 'GET', url: `${base}/never-answers`, timeoutMs: 300 }));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('the deadline covers the whole response, not just its headers', async () => {
    expect((await failure(client.requestJson({ method: 'GET', url: `${base}/stalls-mid-body`, timeoutMs: 300 }))).kind).toBe('timeout');
  });

  it('reports an answer cut off mid-body as a network failure, not as a short success', async () => {
    expect((await failure(client.requestJson({ method: 'GET', url: `${base}/cut-mid-body` }))).kind).toBe('network');
  });

  it('abandons a response over the size cap, declared or streamed', async () => {
    expect((await failure(client.requestJson({ method: 'GET', url: `${base}/huge` }))).kind).toBe('response_too_large');
    expect((await failure(client.requestJson({ method: 'GET', url: `${base}/huge-chunked` }))).kind).toBe('response_too_large');
  });

  it('returns a non-JSON error answer with its status and text', async () => {
    const response = await client.requestJson({ method: 'GET', url: `${base}/html-error` });
    expect(response).toMatchObject({ status: 502, json: undefined, text: '<html>Bad gateway</html>' });
  });

  it('refuses a header HTTP cannot carry before sending anything, naming the header but not its value', async () => {
    let reached = 0;
    const counting = createServer((_req, res) => {
      reached += 1;
      res.end();
    });
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(counting.address() as AddressInfo).port}/`;
    try {
      for (const value of ['Bearer k\r\nx-injected: 1', 'Bearer \u0000', 'Bearer \u043a\u043b\u044e\u0447', 'Bearer \u0100']) {
        const error = await failure(client.requestJson({ method: 'GET', url, headers: { authorization: value } }));
        expect(error).toMatchObject({ kind: 'invalid_header', details: { header: 'authorization' } });
        expect(error.message).not.toContain('Bearer');
      }
      expect((await failure(client.requestJson({ method: 'GET', url, headers: { 'bad name': 'v' } }))).kind).toBe('invalid_header');
      expect(reached).toBe(0);
    } finally {
      await new Promise((resolve) => counting.close(resolve));
    }
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(client.requestJson({ method: 'GET', url: `http://127.0.0.1:${closedPort}/` }));
    expect(error).toMatchObject({ kind: 'network', details: { code: 'ECONNREFUSED' } });
  });
});

describe('OutboundHttpClient with keepAlive', () => {
  /** Its own server: counts connections, and on `/closes-kept` destroys a connection's second request unanswered. */
  let kept: Server;
  let keptBase: string;
  let connections = 0;
  const requestsOn = new WeakMap<object, number>();
  const client = new OutboundHttpClient({ allowPrivate: true, timeoutMs: 10_000, keepAlive: true });

  beforeAll(async () => {
    kept = createServer((req, res) => {
      const nth = (requestsOn.get(req.socket) ?? 0) + 1;
      requestsOn.set(req.socket, nth);
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (req.url === '/closes-kept' && nth > 1) return void req.socket.destroy();
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ body, nth }));
        if (req.url === '/slow') setTimeout(answer, 4_500);
        else answer();
      });
    });
    kept.on('connection', () => connections++);
    await new Promise<void>((resolve) => kept.listen(0, '127.0.0.1', resolve));
    keptBase = `http://127.0.0.1:${(kept.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    client.close();
    kept.closeAllConnections();
    await new Promise((resolve) => kept.close(resolve));
  });

  it('sends requests one after another over one connection, a pre-serialised body byte for byte', async () => {
    const before = connections;
    const signed = '{"b": 1,  "a":[2]}';
    const first = await client.requestJson({ method: 'POST', url: `${keptBase}/echo`, bodyText: signed });
    const second = await client.requestJson({ method: 'POST', url: `${keptBase}/echo`, bodyText: signed });
    expect([first.json, second.json]).toEqual([{ body: signed, nth: 1 }, { body: signed, nth: 2 }]);
    expect(connections - before).toBe(1);
  });

  it('a kept connection the server drops when the next request arrives: the request is answered on a new one', async () => {
    await client.requestJson({ method: 'GET', url: `${keptBase}/closes-kept` });
    const before = connections;
    const again = await client.requestJson({ method: 'GET', url: `${keptBase}/closes-kept` });
    expect(again.status).toBe(200);
    expect(connections - before).toBe(1);
  });

  it('an answer slower than the idle close of kept connections is still read in full', async () => {
    const slow = await client.requestJson({ method: 'GET', url: `${keptBase}/slow` });
    expect(slow.status).toBe(200);
  }, 30_000);
});

describe('urlUnder', () => {
  it('keeps the base URL’s path and adds the query', () => {
    expect(urlUnder('https://api.example/platform/', '/v2/agents', { 'metadata.external_id': 'a b' }).href).toBe(
      'https://api.example/platform/v2/agents?metadata.external_id=a+b',
    );
    expect(urlUnder('https://api.example', '/assistant/1').href).toBe('https://api.example/assistant/1');
  });
});
