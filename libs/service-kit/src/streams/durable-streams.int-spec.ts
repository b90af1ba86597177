import { describe, expect, it } from '@jest/globals';
import { eventually, STREAM_ADAPTERS, streamsUnderTest } from '../../../../test/support/streams.js';
import type { StreamMessage } from './message-streams.js';

/** Collects what a consumer sees and lets a test decide how each message is settled. */
function recorder(settle: (m: StreamMessage) => void = (m) => m.ack()) {
  const seen: Array<{ data: unknown; deliveryCount: number; batch: number; at: number }> = [];
  let batches = 0;
  const handle = async (batch: StreamMessage[]) => {
    batches += 1;
    for (const m of batch) {
      seen.push({ data: m.data, deliveryCount: m.deliveryCount, batch: batches, at: Date.now() });
      settle(m);
    }
  };
  return { seen, handle };
}

/**
 * The message, acknowledged at its last delivery, does not come back. Deliveries before it may repeat a count:
 * JetStream hands a delivery out again, at the same count, when it believes the pull it went to had ended (a pull
 * expiring as the message was sent), although the client did receive it — at-least-once, as documented.
 */
async function settledForGood(seen: Array<{ deliveryCount: number }>): Promise<void> {
  const counts = seen.map((s) => s.deliveryCount);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  await new Promise((r) => setTimeout(r, 1_300));
  expect(seen).toHaveLength(counts.length);
}

describe.each(STREAM_ADAPTERS)('durable streams over %s', (_name, kind) => {
  const harness = streamsUnderTest(kind);
  const { nextStream } = harness;

  it('delivers messages published before and after the consumer started, de-duplicating by msg id', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    await harness.streams.publish(`${subject}.a`, { n: 1 }, 'id-1');
    await harness.streams.publish(`${subject}.a`, { n: 1 }, 'id-1');
    const { seen, handle } = recorder();
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd' }, handle);
    await harness.streams.publish(`${subject}.b`, { n: 2 }, 'id-2');
    await eventually(() => expect(seen.map((s) => s.data)).toEqual([{ n: 1 }, { n: 2 }]));
    await consumer.stop();
  });

  it('refuses a publish onto a subject no stream takes, at once', async () => {
    const { subject } = nextStream();
    const started = Date.now();
    await expect(harness.streams.publish(`${subject}.nowhere`, { n: 1 }, 'nowhere-1')).rejects.toThrow(/no stream/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('waits for an acknowledgement as long as the caller says, and no longer', async () => {
    if (!harness.nc) return; // the in-process stand-in stores a message before publish returns
    const { subject } = nextStream();
    // Something that takes the message and never acknowledges it: a stream falling behind, from the publisher's side.
    const silent = harness.nc.subscribe(`${subject}.silent`);
    try {
      for (const ackTimeoutMs of [300, 1_500]) {
        const started = Date.now();
        await expect(harness.streams.publish(`${subject}.silent`, { n: 1 }, `silent-${ackTimeoutMs}`, { ackTimeoutMs })).rejects.toThrow();
        const waited = Date.now() - started;
        expect(waited).toBeGreaterThanOrEqual(ackTimeoutMs - 20);
        expect(waited).toBeLessThan(ackTimeoutMs + 1_000);
      }
    } finally {
      silent.unsubscribe();
    }
  });

  it('acknowledges 2,000 concurrent publishes, each stored once', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    const ids = Array.from({ length: 2_000 }, (_, i) => `concurrent-${i}`);
    await Promise.all(ids.map((id) => harness.streams.publish(`${subject}.m`, { id }, id)));
    await Promise.all(ids.slice(0, 100).map((id) => harness.streams.publish(`${subject}.m`, { id }, id)));
    const { seen, handle } = recorder();
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd' }, handle);
    await eventually(() => expect(seen.length).toBe(2_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(new Set(seen.map((s) => (s.data as { id: string }).id)).size).toBe(2_000);
    expect(seen.length).toBe(2_000);
    await consumer.stop();
  });

  it('redelivers a nak-ed message after the delay, with a higher delivery count', async () => {
    const { stream, subject } = nextStream();
    const { seen, handle } = recorder((m) => (m.deliveryCount === 1 ? m.nak(200) : m.ack()));
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd' }, handle);
    await harness.streams.publish(`${subject}.x`, { n: 1 }, 'nak-1');
    await eventually(() => expect(seen.at(-1)?.deliveryCount).toBe(2));
    expect(seen[0].deliveryCount).toBe(1);
    expect(seen.at(-1)!.at - seen[0].at).toBeGreaterThanOrEqual(180);
    await settledForGood(seen);
    await consumer.stop();
  });

  it('redelivers a message nobody settled once the ack wait has passed', async () => {
    const { stream, subject } = nextStream();
    const { seen, handle } = recorder((m) => (m.deliveryCount === 1 ? undefined : m.ack()));
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 1000 }, handle);
    await harness.streams.publish(`${subject}.x`, { n: 1 }, 'lost-ack-1');
    await eventually(() => expect(seen.at(-1)?.deliveryCount).toBeGreaterThanOrEqual(2), 8000);
    expect(seen[0].deliveryCount).toBe(1);
    // Only the ack wait's expiry raises the count: the first delivery with a higher one comes after it.
    expect(seen.find((s) => s.deliveryCount >= 2)!.at - seen[0].at).toBeGreaterThanOrEqual(900);
    await settledForGood(seen);
    await consumer.stop();
  });

  it('never redelivers a terminated message', async () => {
    const { stream, subject } = nextStream();
    const { seen, handle } = recorder((m) => ((m.data as { n: number }).n === 1 ? m.term('poison') : m.ack()));
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs: 1000 }, handle);
    await harness.streams.publish(`${subject}.x`, { n: 1 }, 'poison-1');
    await harness.streams.publish(`${subject}.x`, { n: 2 }, 'fine-2');
    await eventually(() => expect(seen.map((s) => s.data)).toEqual([{ n: 1 }, { n: 2 }]));
    await new Promise((r) => setTimeout(r, 1300));
    expect(seen).toHaveLength(2);
    await consumer.stop();
  });

  it('hands over many messages in batches no larger than the batch size', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (let i = 0; i < 50; i++) await harness.streams.publish(`${subject}.x`, { n: i }, `many-${i}`);
    const sizes = new Map<number, number>();
    const { seen, handle } = recorder();
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', batchSize: 8 }, async (batch) => {
      await handle(batch);
      sizes.set(sizes.size, batch.length);
    });
    await eventually(() => expect(seen).toHaveLength(50));
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(8);
    expect(seen.map((s) => (s.data as { n: number }).n)).toEqual([...Array(50).keys()]);
    await consumer.stop();
  });

  it('never redelivers messages a live consumer holds behind a slow batch, however short the ack wait', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (let i = 0; i < 12; i++) await harness.streams.publish(`${subject}.x`, { n: i }, `slow-${i}`);
    const seen: Array<{ n: number; deliveryCount: number }> = [];
    const ackWaitMs = 600;
    const consumer = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', batchSize: 4, ackWaitMs }, async (batch) => {
      // Each batch takes three ack waits; the next ones wait in the buffer meanwhile.
      await new Promise((r) => setTimeout(r, 3 * ackWaitMs));
      for (const m of batch) {
        seen.push({ n: (m.data as { n: number }).n, deliveryCount: m.deliveryCount });
        m.ack();
      }
    });
    await eventually(() => expect(seen).toHaveLength(12), 20_000);
    await new Promise((r) => setTimeout(r, 2 * ackWaitMs));
    expect(seen.map((s) => s.n)).toEqual([...Array(12).keys()]);
    expect(seen.every((s) => s.deliveryCount === 1)).toBe(true);
    await consumer.stop();
  }, 30_000);

  it('gives the messages a consumer died holding to its successor within about the ack wait', async () => {
    const { stream, subject } = nextStream();
    const ackWaitMs = 1_500;
    let stopDying: () => void = () => undefined;
    const received = new Promise<void>((resolve) => (stopDying = resolve));
    // The first consumer takes the messages and never settles them (its process "dies": it stops signalling).
    const dying = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs }, async () => {
      stopDying();
      await new Promise(() => undefined);
    });
    await harness.streams.publish(`${subject}.x`, { n: 1 }, 'held-1');
    await received;
    void dying.stop();
    const diedAt = Date.now();
    const { seen, handle } = recorder();
    const successor = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'd', ackWaitMs }, handle);
    await eventually(() => expect(seen.map((s) => s.data)).toEqual([{ n: 1 }]), 10_000);
    expect(Date.now() - diedAt).toBeLessThan(ackWaitMs + 2_500);
    await successor.stop();
  }, 30_000);
});

describe('in-process streams without limits', () => {
  const harness = streamsUnderTest('in-process');

  it('keep a message only until every durable consumer has settled it, so a long-running process does not hold every call event', async () => {
    const { stream, subject } = harness.nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    // Before any consumer exists, everything is kept for the first one.
    for (let n = 1; n <= 3; n++) await harness.streams.publish(`${subject}.x`, { n }, `keep-${n}`);
    expect(await harness.streams.bounds(stream)).toMatchObject({ first: 1, last: 3 });

    // Two consumers: a message goes once both settled it; a nak-ed one stays until its redelivery is acked.
    const first = recorder((m) => ((m.data as { n: number }).n === 4 && m.deliveryCount === 1 ? m.nak(2_000) : m.ack()));
    const a = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'a' }, first.handle);
    let releaseB: () => void = () => undefined;
    const bMayAck = new Promise<void>((resolve) => (releaseB = resolve));
    const held: StreamMessage[] = [];
    const b = await harness.streams.consume({ stream, subjects: [`${subject}.>`], durable: 'b' }, async (batch) => {
      held.push(...batch);
      await bMayAck;
      for (const m of batch) m.ack();
    });
    for (let n = 4; n <= 5; n++) await harness.streams.publish(`${subject}.x`, { n }, `keep-${n}`);
    await eventually(() => expect(first.seen.filter((s) => s.deliveryCount === 1)).toHaveLength(5));
    expect(await harness.streams.bounds(stream)).toMatchObject({ first: 1, last: 5 }); // b holds all of them
    releaseB();
    await eventually(async () => expect(await harness.streams.bounds(stream)).toMatchObject({ first: 4, last: 5 })); // 4 waits for its redelivery
    await eventually(async () => expect(await harness.streams.bounds(stream)).toMatchObject({ first: 6, last: 5 }));
    expect(first.seen.map((s) => [(s.data as { n: number }).n, s.deliveryCount])).toEqual([[1, 1], [2, 1], [3, 1], [4, 1], [5, 1], [4, 2]]);
    expect(held.map((m) => (m.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5]);
    await a.stop();
    await b.stop();
  });
});
