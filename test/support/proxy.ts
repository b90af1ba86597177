import { createServer, connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy in front of a real server that a test can cut, as a network partition would. */
export interface CuttableProxy {
  /** host:port of the proxy. */
  port: number;
  /** Close the listener and every open connection: from now on the server is unreachable. */
  cut(): Promise<void>;
}

export interface ProxyOptions {
  /**
   * Per connection, what the client's bytes become on their way to the server (a protocol filter may hold a partial
   * frame back until the rest arrives); by default they pass untouched.
   */
  fromClient?: () => (chunk: Buffer) => Buffer;
}

export async function cuttableProxy(host: string, port: number, options: ProxyOptions = {}): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = tcpConnect(port, host);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    if (options.fromClient) {
      const filter = options.fromClient();
      client.on('data', (chunk: Buffer) => server.write(filter(chunk)));
    } else {
      client.pipe(server);
    }
    server.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  let cut: Promise<void> | undefined;
  return {
    port: (proxy.address() as AddressInfo).port,
    cut: () =>
      (cut ??= new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const s of sockets) s.destroy();
      })),
  };
}
