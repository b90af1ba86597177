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

  it('publishes each committed version of a conversation once, in order, on its account’s subject, as the list shows it (the end with the full record)', async () => {
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
    // The change that shows the call over also carries its full record, as GET /v1/conversations/{id} shows it.
    expect(mine.seen.at(-1)!.data).toEqual({ type: 'conversation.updated', account_id: account, version: 3, conversation: listed, ended_detail: await h.get(account, id) });
    expect(mine.seen.slice(0, 2).map((m) => m.data)).not.toContainEqual(expect.objectContaining({ ended_detail: expect.anything() }));
    expect(theirs.seen).toEqual([]);
    await mine.stop();
    await theirs.stop();
  });

  it('recording never waits for a changes stream that refuses them: the calls are listed at once, the changes wait in the outbox until the stream takes them', async () => {
    // The stream replaced by one that takes a single message and refuses the rest.
    const jsm = await jetstreamManager(h.nc);
    await jsm.streams.delete(stream());
    await jsm.streams.add({
      name: stream(), subjects: [namespacedSubject(h.namespace, 'conversation_changes.>')], storage: StorageType.File, retention: RetentionPolicy.Limits,
      max_msgs: 1, discard: DiscardPolicy.New,
    });
    const mine = await follow(other);
    const ids = Array.from({ length: 8 }, () => `conv-${randomUUID()}`);
    for (const id of ids) {
      await h.publishCallEvents([callEvents(id, otherAgent).started()]);
      await h.eventually(async () => expect((await h.get(other, id)).status).toBe('in_progress'));
    }
    await new Promise((r) => setTimeout(r, 500));
    expect((await jsm.streams.info(stream())).state.messages).toBe(1);
    const { rows } = await h.db.query('SELECT count(*)::int AS n FROM conversations.conversation_changes');
    expect(rows[0].n).toBeGreaterThanOrEqual(7);
    // The stream takes messages again: every change arrives, none was dropped.
    await jsm.streams.update(stream(), { max_msgs: -1 });
    await h.service.app.get(ConversationChangesPublisher).settled();
    await h.eventually(async () => expect(new Set(mine.seen.map((m) => m.data.conversation.id))).toEqual(new Set(ids)));
    await mine.stop();
  });

  it('a backlog of several batches is published whole: the checkpoint follows positions as numbers, never as text', async () => {
    const jsm = await jetstreamManager(h.nc);
    const { config, state } = await jsm.streams.info(stream());
    // The stream refuses while 1,200 changes (over two batches, positions across a digit boundary) wait in the outbox.
    await jsm.streams.update(stream(), { ...config, max_msgs: Math.max(1, state.messages), discard: DiscardPolicy.New });
    const mine = await follow(account);
    const ids = Array.from({ length: 1_200 }, (_, i) => `conv-backlog-${i}-${randomUUID()}`);
    await h.db.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
       SELECT id, $2, $3, 'in_progress', now(), '{}'::jsonb, 1 FROM unnest($1::text[]) AS id`,
      [ids, account, agent],
    );
    await new Promise((r) => setTimeout(r, 300));
    await jsm.streams.update(stream(), { ...config });
    await h.service.app.get(ConversationChangesPublisher).settled();
    await h.eventually(async () => expect(new Set(mine.seen.map((m) => m.data.conversation.id)).size).toBeGreaterThanOrEqual(ids.length), 30_000);
    const seen = new Set(mine.seen.map((m) => m.data.conversation.id));
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
    await mine.stop();
  });

  it('publishes a change only once its transaction committed, never one rolled back', async () => {
    const mine = await follow(account);
    const kept = `conv-${randomUUID()}`;
    const rolledBack = `conv-${randomUUID()}`;
    const insert = (id: string) => h.db.query(
      `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
       VALUES ($1, $2, $3, 'in_progress', now(), '{}'::jsonb, 1)`,
      [id, account, agent],
    );
    const client = await h.db.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO conversations.conversations (id, account_id, agent_id, status, start_time, detail, stream_version)
         VALUES ($1, $2, $3, 'in_progress', now(), '{}'::jsonb, 1)`,
        [rolledBack, account, agent],
      );
      // A later transaction commits while this one is open: the relay waits for the earlier one to settle.
      await insert(kept);
      await new Promise((r) => setTimeout(r, 500));
      expect(mine.seen.map((m) => m.data.conversation.id)).not.toContain(kept);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await h.eventually(async () => expect(mine.seen.map((m) => m.data.conversation.id)).toContain(kept));
    await new Promise((r) => setTimeout(r, 300));
    expect(mine.seen.map((m) => m.data.conversation.id)).not.toContain(rolledBack);
    await mine.stop();
  });
});
