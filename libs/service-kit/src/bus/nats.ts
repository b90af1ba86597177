import { ClientNats, ServerNats, type NatsOptions } from '@nestjs/microservices';
import { namespacedSubject } from '@voice/contracts';
import { NATS_CLIENT_SETTINGS, natsConnectionOptions } from './nats-connection.js';
import { SingleSerializationNatsSerializer } from './reply-claims.js';

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
}

export class NamespacedNatsClient extends ClientNats {
  constructor(private readonly namespace: string, options: NatsTransportOptions) {
    super(options);
  }
  protected override normalizePattern(pattern: unknown): string {
    return namespacedSubject(this.namespace, super.normalizePattern(pattern as string));
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
