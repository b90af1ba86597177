import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { randomNamespace, testNatsUrl } from '@voice/testing';
import { coalesceWrites } from './write-coalescing.js';

/** Counts the writes a connection hands its socket. */
function countWrites(connection: NatsConnection): () => number {
  const transport = (connection as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame) => {
    writes++;
    send(frame);
  };
  return () => writes;
}

/**
 * `count` publishes, each from a callback of its own, all run in the same turn of the event loop (as the I/O callbacks
 * of requests arriving together are): immediates queued together run in one check phase, with microtasks between them.
 */
async function publishFromSeparateCallbacks(connection: NatsConnection, subject: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) => new Promise<void>((resolve) => setImmediate(() => (connection.publish(subject, String(i)), resolve())))),
  );
}

function collect(connection: NatsConnection, subject: string, count: number): Promise<string[]> {
  const received: string[] = [];
  return new Promise((resolve) => {
    connection.subscribe(subject, {
      callback: (_err, msg: Msg) => {
        received.push(msg.string());
        if (received.length === count) resolve(received);
      },
    });
  });
}

describe('coalesceWrites: a connection writes once per turn of the event loop', () => {
  const open: NatsConnection[] = [];
  const connectTo = async () => {
    const connection = await connect({ servers: testNatsUrl() });
    open.push(connection);
    return connection;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  /** A receiver expecting `count` messages on a fresh subject, and a publisher whose writes are counted. */
  const publishing = async (count: number, coalesced: boolean) => {
    const subject = `${randomNamespace()}.published`;
    const receiver = await connectTo();
    const arrived = collect(receiver, subject, count);
    await receiver.flush();
    const publisher = await connectTo();
    if (coalesced) expect(coalesceWrites(publisher)).toBe(true);
    return { subject, publisher, arrived, writes: countWrites(publisher) };
  };

  it('sends messages published from separate callbacks of one turn in one write, every one delivered in order', async () => {
    const { subject, publisher, arrived, writes } = await publishing(50, true);
    await publishFromSeparateCallbacks(publisher, subject, 50);
    await new Promise((resolve) => setImmediate(resolve));

    expect(writes()).toBe(1);
    expect(await arrived).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it('is what makes the difference: the library alone writes once per callback', async () => {
    const { subject, publisher, arrived, writes } = await publishing(50, false);
    await publishFromSeparateCallbacks(publisher, subject, 50);

    expect(writes()).toBe(50);
    expect(await arrived).toHaveLength(50);
  });

  it('still writes at once past the pending limit, on an explicit flush, and before closing', async () => {
    const { subject, publisher, arrived, writes } = await publishing(4, true);
    const large = 'x'.repeat(200_000);
    // Past the library's pending limit (32 KiB) the buffer is written in the same call, as without coalescing.
    publisher.publish(subject, large);
    expect(writes()).toBe(1);
    publisher.publish(subject, 'flushed');
    await publisher.flush();
    expect(writes()).toBeGreaterThanOrEqual(2);
    // Published and closed in the same callback: the message is written before the connection goes.
    publisher.publish(subject, 'last');
    publisher.publish(subject, 'words');
    await publisher.close();

    expect((await arrived).map((m) => (m === large ? 'large' : m))).toEqual(['large', 'flushed', 'last', 'words']);
  });

  it('carries requests and their replies between two coalesced connections, one after another', async () => {
    const subject = `${randomNamespace()}.echo`;
    const responder = await connectTo();
    coalesceWrites(responder);
    responder.subscribe(subject, {
      callback: (_err, msg) => {
        msg.respond(`re:${msg.string()}`);
      },
    });
    await responder.flush();

    const requester = await connectTo();
    coalesceWrites(requester);
    // Each request is alone in its turn of the loop: its write must still leave without more traffic behind it.
    for (let i = 0; i < 200; i++) expect((await requester.request(subject, String(i), { timeout: 2_000 })).string()).toBe(`re:${i}`);
  });
});
