import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { NATS_CLIENT_SETTINGS, natsConnectionOptions } from './nats-connection.js';
import { coalesceWrites } from './write-coalescing.js';

/** A connection that reconnects forever and writes once per turn of the event loop (coalesceWrites). */
export async function connectNats(natsUrl: string, name: string): Promise<NatsConnection> {
  const connection = await connect({ ...natsConnectionOptions(natsUrl), ...NATS_CLIENT_SETTINGS, name, maxReconnectAttempts: -1 });
  coalesceWrites(connection);
  return connection;
}

/**
 * drain() flushes pending publishes and acks, but while the server is unreachable it waits for a
 * reconnect that may never come: shutting down must not hang on an outage, so fall back to close().
 */
export async function closeNats(nc: NatsConnection | undefined, drainTimeoutMs = 2000): Promise<void> {
  if (!nc || nc.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), drainTimeoutMs);
  });
  try {
    const outcome = await Promise.race([nc.drain().then(() => 'drained' as const), timedOut]);
    if (outcome === 'timeout') await nc.close();
  } catch {
    await nc.close().catch(() => undefined);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How many servers of a NATS cluster hold each stream and durable consumer (JETSTREAM_REPLICAS): 1 on a
 * single server; 3 in a three-node cluster, so a stream survives one node's loss and keeps a quorum (2 of 3)
 * to acknowledge publishes while a node is down.
 */
export const DEFAULT_JETSTREAM_REPLICAS = 1;

/** The stream exists, but its max age could not be changed to the one asked for (the user may not edit it). */
export class StreamUpdateRefused extends Error {
  constructor(readonly stream: string, readonly maxAgeMs: number, reason: string) {
    super(`could not change the max age of stream ${stream} to ${maxAgeMs} ms: ${reason}`);
  }
}

/**
 * Create the stream if it does not exist (file storage, limits retention), on `replicas` servers.
 * An existing stream keeps its replica count: the services' NATS users may create streams, not edit
 * them, so an operator scales one that predates the cluster (docs/operations.md). Only its max age is
 * changed, and only when `updateMaxAge` asks for it (a user with the stream's UPDATE permission).
 * The duplicate window de-duplicates Nats-Msg-Id re-publishes; the real
 * guarantee is the unique event id in PostgreSQL.
 */
export async function ensureStream(
  nc: NatsConnection,
  name: string,
  subjects: string[],
  limits: { maxAgeMs?: number; maxMessages?: number; updateMaxAge?: boolean } = {},
  replicas = DEFAULT_JETSTREAM_REPLICAS,
): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  try {
    const { config } = await jsm.streams.info(name);
    const maxAge = limits.maxAgeMs === undefined ? undefined : limits.maxAgeMs * 1_000_000;
    if (limits.updateMaxAge && maxAge !== undefined && config.max_age !== maxAge) {
      await jsm.streams.update(name, { max_age: maxAge }).catch((err: Error) => {
        throw new StreamUpdateRefused(name, limits.maxAgeMs as number, err.message);
      });
    }
  } catch (err) {
    if (err instanceof StreamUpdateRefused) throw err;
    try {
      await jsm.streams.add({
        name,
        subjects,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        duplicate_window: 2 * 60 * 1_000_000_000,
        num_replicas: replicas,
        ...(limits.maxAgeMs !== undefined ? { max_age: limits.maxAgeMs * 1_000_000 } : {}),
        ...(limits.maxMessages !== undefined ? { max_msgs: limits.maxMessages } : {}),
      });
    } catch (err) {
      // Another replica may have created it between our info() and add().
      await jsm.streams.info(name).catch(() => {
        throw err;
      });
    }
  }
  return jsm;
}
