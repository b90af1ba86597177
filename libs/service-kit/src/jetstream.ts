import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';

export async function connectNats(natsUrl: string, name: string): Promise<NatsConnection> {
  return connect({ servers: natsUrl.split(','), name, maxReconnectAttempts: -1 });
}

/**
 * Create the stream if it does not exist (file storage, limits retention).
 * The duplicate window de-duplicates Nats-Msg-Id re-publishes; the real
 * guarantee is the unique event id in PostgreSQL.
 */
export async function ensureStream(nc: NatsConnection, name: string, subjects: string[]): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(name);
  } catch {
    try {
      await jsm.streams.add({
        name,
        subjects,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        duplicate_window: 2 * 60 * 1_000_000_000,
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
