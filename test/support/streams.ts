import { afterAll, beforeAll } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { InProcessStreams, JetStreamStreams, type MessageStreams } from '@voice/service-kit';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from './nats.js';

export type StreamsKind = 'jetstream' | 'in-process';

/** Both adapters of the durable-stream port, so one spec proves the same contract of each. */
export const STREAM_ADAPTERS = [
  ['JetStream', 'jetstream'],
  ['in-process', 'in-process'],
] as const;

/**
 * Registers the hooks that give a describe block one adapter of the port over a NATS
 * namespace of its own (removed afterwards), and a fresh stream/subject pair (numbered `n`) per call.
 */
export function streamsUnderTest(kind: StreamsKind) {
  const namespace = randomNamespace();
  let counter = 0;
  const harness = {
    nc: undefined as NatsConnection | undefined,
    streams: undefined as unknown as MessageStreams,
    nextStream() {
      counter += 1;
      return { stream: `${namespace}_S${counter}`, subject: `${namespace}.s${counter}`, n: counter };
    },
  };
  beforeAll(async () => {
    if (kind === 'jetstream') {
      harness.nc = await connect({ servers: testNatsUrl() });
      harness.streams = new JetStreamStreams(harness.nc);
    } else {
      harness.streams = new InProcessStreams();
    }
  });
  afterAll(async () => {
    await harness.nc?.close();
    if (kind === 'jetstream') await deleteNamespaceStreams(namespace);
  });
  return harness;
}

/** Re-runs an assertion until it holds or the time is up (then its own failure explains the timeout). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
