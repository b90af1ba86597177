import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { StreamMessage } from '@voice/service-kit';
import { CALL_EVENTS_STREAM, namespacedStream, type CallEvent } from '@voice/contracts';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { generateCalls } from '@voice/call-generator';
import { startHarness, type Harness } from '../testing/harness.js';
import { CALL_EVENTS_DURABLE, CallEventsConsumer } from './call-events.consumer.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/** Delivery semantics of the JetStream path: order, duplicates, redelivery after a crash, freshness. */
describe('call-event delivery', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness({ tuning: { ackWaitMs: 1_000 } });
    await h.publishKnownAgent({ agent_id: agent, account_id: account, name: 'Ops' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const streamState = async (conversationId: string) => {
    const { rows } = await h.db.query(
      `SELECT (SELECT count(*)::int FROM conversations.events WHERE stream_id = $1) AS events, c.stream_version, c.updated_at, c.detail
         FROM conversations.conversations c WHERE c.id = $1`,
      [conversationId],
    );
    return rows[0] as { events: number; stream_version: number; updated_at: Date; detail: unknown } | undefined;
  };
  const processed = (conversationId: string, count: number) =>
    h.eventually(async () => expect((await streamState(conversationId))?.events).toBe(count));
  const withoutIdentity = <T extends { id: string; created_at: string; updated_at: string }>(d: T) => {
    const { id: _id, created_at: _c, updated_at: _u, ...rest } = d;
    return rest;
  };
  const renamed = (events: CallEvent[], conversationId: string): CallEvent[] =>
    events.map((e) => ({ ...e, id: `${conversationId}/${e.id}`, conversation_id: conversationId }));

  it('any arrival order (each event processed on its own) gives the same record as in-order delivery', async () => {
    const calls = generateCalls({ count: 8, seed: 99, agentIds: [agent], idPrefix: `p${randomUUID().slice(0, 6)}` })
      .filter((c) => c.events.length > 1);
    const orders = fc.sample(fc.tuple(...calls.map((c) => fc.shuffledSubarray(c.events, { minLength: c.events.length, maxLength: c.events.length }))), { numRuns: 1, seed: 7 })[0];
    for (const [k, call] of calls.entries()) {
      const inOrderId = `${call.conversation_id}-in-order`;
      const shuffledId = `${call.conversation_id}-shuffled`;
      await h.publishCallEvents(renamed(call.events, inOrderId));
      // One event at a time, each committed before the next is published: a real out-of-order history.
      const shuffled = renamed(orders[k], shuffledId);
      for (const [n, event] of shuffled.entries()) {
        await h.publishCallEvents([event]);
        await processed(shuffledId, n + 1);
      }
      await processed(inOrderId, call.events.length);
      expect(withoutIdentity(await h.get(account, shuffledId))).toEqual(withoutIdentity(await h.get(account, inOrderId)));
    }
  });

  it('a duplicate event (same id, new message id, so JetStream cannot de-duplicate it) changes nothing', async () => {
    const [call] = generateCalls({ count: 1, seed: 5, agentIds: [agent], idPrefix: `d${randomUUID().slice(0, 6)}` });
    await h.publishCallEvents(call.events);
    await processed(call.conversation_id, call.events.length);
    const before = await streamState(call.conversation_id);
    await h.publishCallEvents(call.events, call.events.map(() => randomUUID()));
    // A marker published after the duplicates: once it is processed, so were they.
    const marker = { ...call.events[0], id: randomUUID(), conversation_id: `marker-${randomUUID()}` };
    await h.publishCallEvents([marker]);
    await processed(marker.conversation_id, 1);
    expect(await streamState(call.conversation_id)).toEqual(before);
    // The account's kept total still counts each conversation once.
    const { rows: [{ count }] } = await h.db.query(`SELECT count(*)::int FROM conversations.conversations WHERE account_id = $1`, [account]);
    expect((await h.list(account, {})).total).toBe(count);
  });

  it('an acknowledged event is visible in the list typically within 1 second, always within 5', async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 15; i++) {
      const event = { ...generateCalls({ count: 1, seed: 100 + i, agentIds: [agent], idPrefix: `fresh${i}` })[0].events[0], id: randomUUID() };
      await h.publishCallEvents([event]); // resolves once JetStream acknowledged the publish
      const t0 = Date.now();
      await h.eventually(async () => expect((await h.list(account, { per_page: '100' })).items.map((x) => x.id)).toContain(event.conversation_id), 2_000);
      latencies.push(Date.now() - t0);
    }
    // Typically within a second: a consumer that waited on a timer for each event (a pull's expiry, say) fails the
    // median. One event may take longer on a machine running the whole suite at once: a pull nats-server 2.9 ignored
    // is replaced only once it has been silent for 0.7 s, and 1.6 s was seen there. A consumer that stopped fails
    // the 5 s bound.
    const sorted = [...latencies].sort((a, b) => a - b);
    expect({ median: sorted[Math.floor(sorted.length / 2)] < 1_000, max: sorted.at(-1)! < 5_000, latencies }).toMatchObject({ median: true, max: true });
  });

  it('a crash between commit and ack: the redelivery (after ack_wait) changes nothing', async () => {
    const service = h.service.app.get(CallEventsConsumer);
    // Take the service's place on its durable consumer so every delivery passes through this test.
    await service.stop();
    const consumer = await jetstream(h.nc).consumers.get(namespacedStream(h.namespace, CALL_EVENTS_STREAM), CALL_EVENTS_DURABLE);
    const [call] = generateCalls({ count: 1, seed: 11, agentIds: [agent], idPrefix: `crash${randomUUID().slice(0, 6)}` });
    const event = call.events[0];
    await h.publishCallEvents([event]);

    // The same view of a delivery the service's consumer gets from the bus.
    const asDelivery = (m: JsMsg, options: { ackLost?: boolean } = {}): StreamMessage => ({
      subject: m.subject,
      data: m.json(),
      deliveryCount: m.info.deliveryCount,
      ack: () => (options.ackLost ? undefined : m.ack()),
      nak: (delayMs) => m.nak(delayMs),
      term: () => m.term(),
    });

    const first = await consumer.next({ expires: 5_000 });
    expect(first?.json<CallEvent>().id).toBe(event.id);
    // The process dies after the Postgres commit, before the ack leaves: the ack never happens.
    await service.handle([asDelivery(first!, { ackLost: true })]);
    const afterCommit = await streamState(event.conversation_id);
    expect(afterCommit).toMatchObject({ events: 1, stream_version: 1 });

    const redelivered = await consumer.next({ expires: 5_000 });
    expect(redelivered?.json<CallEvent>().id).toBe(event.id);
    expect(redelivered?.info.deliveryCount).toBe(2);
    await service.handle([asDelivery(redelivered!)]);
    expect(await streamState(event.conversation_id)).toEqual(afterCommit);
    // This time the ack went out: nothing more is delivered.
    expect(await consumer.next({ expires: 2_000 })).toBeNull();
    await service.start();
  }, 20_000);
});
