import { ClientNats, ServerNats, type NatsOptions, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { namespacedSubject } from '@voice/contracts';
import { NATS_CLIENT_SETTINGS, natsConnectionOptions } from './nats-connection.js';
import { SingleSerializationNatsSerializer } from './reply-claims.js';
import { inboxPrefixOf, ReplyInbox } from './reply-inbox.js';
import { coalesceWrites } from './write-coalescing.js';

type NatsTransportOptions = NonNullable<NatsOptions['options']>;

/**
 * Nest's NATS transport with every subject prefixed by the deployment namespace.
 * Handlers keep their plain contract subjects (`agents.create`) while the wire
 * subject is `<ns>.agents.create`.
 */
export class NamespacedNatsServer extends ServerNats {
  constructor(private readonly namespace: string, options: NatsTransportOptions) {
    super(options);
  }
  // Prefix once, where handlers are registered: the server re-normalizes the
  // incoming subject to look the handler up, so normalizePattern must stay as is.
  override addHandler(pattern: unknown, ...rest: Parameters<ServerNats['addHandler']> extends [unknown, ...infer R] ? R : never): void {
    super.addHandler(namespacedSubject(this.namespace, this.normalizePattern(pattern as string)), ...rest);
  }

  /**
   * The route of an incoming subject. Nest's first tries JSON.parse, for JSON patterns; on a plain subject such as
   * ours that throws, and builds a SyntaxError with its stack trace, for every message (about 5 % of a service's CPU
   * on a small request). A subject that cannot be JSON is its own route.
   */
  protected override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') || pattern.startsWith('[') ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }

  /** Replies leave once per turn of the event loop (coalesceWrites). */
  override async createNatsClient(): ReturnType<ServerNats['createNatsClient']> {
    const connection = await super.createNatsClient();
    coalesceWrites(connection as unknown as NatsConnection);
    return connection;
  }
}

export class NamespacedNatsClient extends ClientNats {
  private replies: ReplyInbox | null = null;

  constructor(private readonly namespace: string, options: NatsTransportOptions) {
    super(options);
  }
  protected override normalizePattern(pattern: unknown): string {
    return namespacedSubject(this.namespace, super.normalizePattern(pattern as string));
  }

  /** Requests leave once per turn of the event loop (coalesceWrites). */
  override async createClient(): ReturnType<ClientNats['createClient']> {
    const connection = await super.createClient();
    coalesceWrites(connection as unknown as NatsConnection);
    return connection;
  }

  /**
   * A request as Nest's client sends it, with one difference: the reply comes back on a wildcard subscription the
   * client shares between all its requests (ReplyInbox), where Nest's subscribes a new inbox for each request and
   * unsubscribes it after — a SUB and an UNSUB the server applies for every request, about a fifth of nats-server's
   * and the gateway's RPC CPU on a small request.
   */
  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => unknown): () => void {
    const packet = this.assignPacketId(partialPacket);
    this.routingMap.set(packet.id, callback);
    let inbox: ReplyInbox | null = null;
    const cleanup = () => {
      this.routingMap.delete(packet.id);
      inbox?.forget(packet.id);
    };
    try {
      inbox = this.replyInbox();
      const channel = this.normalizePattern(partialPacket.pattern);
      const serialized = this.serializer.serialize(packet) as { data: Uint8Array | string; headers?: unknown };
      const reply = inbox.listen(packet.id, this.createSubscriptionHandler(packet, callback) as (error: Error | null, msg: Msg | undefined) => unknown);
      this.natsClient!.publish(channel, serialized.data, { reply, headers: this.mergeHeaders(serialized.headers) });
      return cleanup;
    } catch (err) {
      cleanup();
      callback({ err });
      return () => undefined;
    }
  }

  /** The connection's shared inbox; a new one for a new connection (requests still waiting on the old end with their timeouts). */
  private replyInbox(): ReplyInbox {
    const connection = this.natsClient as unknown as NatsConnection | null;
    if (!connection) throw new Error('Not initialized. Please call the "connect" method first.');
    if (this.replies?.connection !== connection || !this.replies.open) {
      this.replies = new ReplyInbox(connection, inboxPrefixOf(connection));
    }
    return this.replies;
  }
}

/**
 * Options for a service's request-reply server. The queue group makes replicas
 * of one service share the load instead of each answering every request.
 */
export function serviceTransportOptions(serviceName: string, natsUrl: string): NatsTransportOptions {
  return {
    ...natsConnectionOptions(natsUrl),
    ...NATS_CLIENT_SETTINGS,
    queue: serviceName,
    name: serviceName,
    gracefulShutdown: true,
    gracePeriod: 2000,
    maxReconnectAttempts: -1,
    // A reply ReplyClaimInterceptor has already serialized (to measure it) is sent as those bytes.
    serializer: new SingleSerializationNatsSerializer(),
  } as NatsTransportOptions;
}
