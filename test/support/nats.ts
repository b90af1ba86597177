import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** A namespace no other test run uses: subjects and streams are prefixed with it. */
export function randomNamespace(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** Remove every JetStream stream a test namespace created. */
export async function deleteNamespaceStreams(namespace: string): Promise<void> {
  const nc = await connect({ servers: testNatsUrl() });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const info of jsm.streams.list()) {
      if (info.config.name.startsWith(`${namespace}_`)) await jsm.streams.delete(info.config.name);
    }
  } finally {
    await nc.close();
  }
}
