import { ClientProxy, NatsContext, NatsRecord, Server, type CustomTransportStrategy, type ReadPacket, type WritePacket } from '@nestjs/microservices';

type Handler = (subject: string, data: unknown, headers: RequestHeaders, respond: (packet: WritePacket) => void) => void;

/** The subset of NATS MsgHdrs that handlers read. */
export interface RequestHeaders {
  get(name: string): string;
}

class MapHeaders implements RequestHeaders {
  constructor(private readonly values: Map<string, string>) {}
  get(name: string): string {
    return this.values.get(name.toLowerCase()) ?? '';
  }
}

/**
 * The in-process stand-in for NATS request-reply, used when the three apps run in
 * one process without a NATS server. The same controllers, pipes, interceptors
 * and exception filters run; payloads and replies are JSON round-tripped exactly
 * as on the wire, so behaviour matches the NATS transport. Like a queue group,
 * several servers registering one subject share requests round-robin.
 */
export class InProcessBus {
  private readonly routes = new Map<string, { handlers: Handler[]; next: number }>();

  register(subject: string, handler: Handler): () => void {
    const route = this.routes.get(subject) ?? { handlers: [], next: 0 };
    route.handlers.push(handler);
    this.routes.set(subject, route);
    return () => {
      route.handlers = route.handlers.filter((h) => h !== handler);
      if (route.handlers.length === 0) this.routes.delete(subject);
    };
  }

  request(subject: string, data: unknown, headers: RequestHeaders, respond: (packet: WritePacket) => void): boolean {
    const route = this.routes.get(subject);
    if (!route || route.handlers.length === 0) return false;
    const handler = route.handlers[route.next++ % route.handlers.length];
    handler(subject, data, headers, respond);
    return true;
  }
}

const wire = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

export class InProcessServer extends Server implements CustomTransportStrategy {
  private unregister: Array<() => void> = [];

  constructor(private readonly bus: InProcessBus) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    for (const subject of this.messageHandlers.keys()) {
      this.unregister.push(
        this.bus.register(subject, (channel, data, headers, respond) => {
          const handler = this.getHandlerByPattern(channel);
          if (!handler) return respond({ err: 'There is no matching message handler defined in the remote service.', isDisposed: true });
          const context = new NatsContext([channel, headers as never]);
          // A request or reply that cannot cross the "wire" (e.g. too deeply nested to serialize) must fail that
          // request alone, as it would over NATS — never escape as an unhandled rejection that ends the process.
          const fail = () => respond({ err: { code: 'internal_error', message: 'The message could not be serialized.' }, isDisposed: true });
          const reply = (packet: WritePacket) => {
            let copy: WritePacket;
            try {
              copy = wire(packet);
            } catch {
              return fail();
            }
            respond(copy);
          };
          Promise.resolve(
            this.handleRequest(context, async () => this.transformToObservable(await handler(wire(data), context)), reply),
          ).catch(fail);
        }),
      );
    }
    callback();
  }

  close(): void {
    for (const off of this.unregister) off();
    this.unregister = [];
  }

  on(): void {
    // No connection status events: the bus lives as long as the process.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }
}

export class InProcessClient extends ClientProxy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {}
  close(): void {}
  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const subject = this.normalizePattern(packet.pattern);
    const { data, headers } = unpackRecord(packet.data);
    let cancelled = false;
    // Reply asynchronously, as a network transport would.
    queueMicrotask(() => {
      if (cancelled) return;
      const delivered = this.bus.request(subject, data, headers, (reply) => {
        if (!cancelled) callback(reply);
      });
      // NATS answers "no responders" when nobody listens; fail fast the same way.
      if (!delivered) callback({ err: { code: 'service_unavailable', message: `No service is listening on ${subject}.` }, isDisposed: true });
    });
    return () => {
      cancelled = true;
    };
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const subject = this.normalizePattern(packet.pattern);
    const { data, headers } = unpackRecord(packet.data);
    this.bus.request(subject, data, headers, () => undefined);
    return undefined as T;
  }
}

/** Accept both plain payloads and NatsRecords (payload + headers), as the NATS client does. */
function unpackRecord(value: unknown): { data: unknown; headers: RequestHeaders } {
  if (value instanceof NatsRecord) {
    const source = value.headers as unknown as { keys?: () => string[]; get(k: string): string } | undefined;
    const map = new Map<string, string>();
    for (const key of source?.keys?.() ?? []) map.set(key.toLowerCase(), source!.get(key));
    return { data: value.data, headers: new MapHeaders(map) };
  }
  return { data: value, headers: new MapHeaders(new Map()) };
}

