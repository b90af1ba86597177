import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import {
  CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, conversationChangesSubject, namespacedStream, namespacedSubject, type ConversationChange,
} from '@voice/contracts';
import { JetStreamStreams, type FollowedMessage } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { ConversationChangesPublisher } from './conversation-changes.publisher.js';

jest.setTimeout(60_000);

/** What conversations-service publishes for the live stream, read from JetStream as the gateway reads it. */
describe('conversation changes on the bus', () => {
  let h: Harness;
  const account = `acct_${randomUUID().replaceAll('-', '')}`;
  const other = `acct_${randomUUID().replaceAll('-', '')}`;
  const agent = `agt_${randomUUID()}`;
  const otherAgent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
    // What the gateway does at its start (the service creates it too, without waiting for it).
    await new JetStreamStreams(h.nc).ensureStream(stream(), [namespacedSubject(h.namespace, 'conversation_changes.>')], CONVERSATION_CHANGES_RETENTION);
    await h.publishKnownAgent({ agent_id: agent, account_id: account, name: 'Front Desk' });
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: other, name: 'Elsewhere' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const stream = () => namespacedStream(h.namespace, CONVERSATION_CHANGES_STREAM);
  async function follow(accountId: string) {
    const seen: Array<FollowedMessage & { data: ConversationChange }> = [];
    const follower = await new JetStreamStreams(h.nc).follow(
      { stream: stream(), subject: namespacedSubject(h.namespace, conversationChangesSubject(accountId)) },
      (m) => seen.push(m as FollowedMessage & { data: ConversationChange }),
    );
    return { seen, stop: () => follower.stop() };
  }

  it('publishes each committed version of a conversation once, in order, on its account’s subject, as the list shows it', async () => {
    const mine = await follow(account);
    const theirs = await follow(other);
    const id = `conv-${randomUUID()}`;
    const c = callEvents(id, agent);
    const events = [c.started(), c.progress(20, { duration: 20, sentiment: 'positive' }), c.ended(45, { summary: 'Booked.', outcome: 'booked' })];
    for (const event of events) {
      await h.publishCallEvents([event]);
      await h.eventually(async () => expect((await h.get(account, id)).updated_at).toBeDefined());
    }
    await h.eventually(async () => expect(mine.seen.map((m) => m.data.version)).toEqual([1, 2, 3]));
    // The same events again (an ingestor's retry): nothing new is recorded, so nothing is published.
    await h.publishCallEvents([events[0]], [`again-${randomUUID()}`]);
    await new Promise((r) => setTimeout(r, 500));
    expect(mine.seen.map((m) => [m.data.type, m.data.version, m.data.conversation.status])).toEqual([
      ['conversation.created', 1, 'in_progress'],
      ['conversation.updated', 2, 'in_progress'],
      ['conversation.updated', 3, 'completed'],
    ]);
    const [listed] = (await h.list(account, { agent_id: agent })).items.filter((item) => item.id === id);
    expect(mine.seen.at(-1)!.data).toEqual({ type: 'conversation.updated', account_id: account, version: 3, conversation: listed });
    expect(theirs.seen).toEqual([]);
    await mine.stop();
    await theirs.stop();
  });

  it('recording never waits for a changes stream that refuses them: the changes are given up, the calls are listed at once', async () => {
    // The stream replaced by one that takes a single message and refuses the rest.
    const jsm = await jetstreamManager(h.nc);
    await jsm.streams.delete(stream());
    await jsm.streams.add({
      name: stream(), subjects: [namespacedSubject(h.namespace, 'conversation_changes.>')], storage: StorageType.File, retention: RetentionPolicy.Limits,
      max_msgs: 1, discard: DiscardPolicy.New,
    });
    const publisher = h.service.app.get(ConversationChangesPublisher);
    const ids = Array.from({ length: 8 }, () => `conv-${randomUUID()}`);
    for (const id of ids) {
      await h.publishCallEvents([callEvents(id, otherAgent).started()]);
      await h.eventually(async () => expect((await h.get(other, id)).status).toBe('in_progress'));
    }
    // Every refused change is tried three times (waits of 100 and 500 ms) one batch after the other: far from done.
    const state = await Promise.race([publisher.settled().then(() => 'settled'), new Promise((r) => setTimeout(() => r('still publishing'), 50))]);
    expect(state).toBe('still publishing');
    await publisher.settled();
    expect((await jsm.streams.info(stream())).state.messages).toBe(1);
  });
});
