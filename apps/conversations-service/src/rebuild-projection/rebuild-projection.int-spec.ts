import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { generateCalls } from '@voice/call-generator';
import { startHarness, type Harness } from '../testing/harness.js';
import { rebuildConversationsProjection } from './rebuild-projection.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

describe('rebuilding the conversations read model from the event store', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];
  let ids: string[];

  beforeAll(async () => {
    h = await startHarness();
    await h.publishKnownAgent({ agent_id: agents[0], account_id: account, name: 'One' });
    await h.publishKnownAgent({ agent_id: agents[1], account_id: account, name: 'Two', recording_enabled: false });
    const calls = generateCalls({ count: 60, seed: 21, agentIds: agents, idPrefix: `rb${randomUUID().slice(0, 6)}` });
    ids = calls.map((c) => c.conversation_id);
    // Two deliveries, so rows are projected more than once and updated_at moves past created_at.
    const events = calls.flatMap((c) => c.events);
    await h.publishCallEvents(events.filter((_, i) => i % 2 === 0));
    await h.eventually(async () => expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.events')).rows[0].n).toBe(Math.ceil(events.length / 2)));
    await h.publishCallEvents(events.filter((_, i) => i % 2 === 1));
    await h.eventually(async () => expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.events')).rows[0].n).toBe(events.length));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an intact read model is identical to its rebuild', async () => {
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({
      streams: 60, live_rows: 60, rebuilt_rows: 60, missing: 0, extra: 0, different: 0, totals_identical: true, identical: true, swapped: false,
    });
  });

  it('finds drift, and --swap repairs it', async () => {
    await h.db.query(`UPDATE conversations.conversations SET summary = 'tampered' WHERE id = $1`, [ids[0]]);
    await h.db.query(`DELETE FROM conversations.conversations WHERE id = $1`, [ids[1]]);
    await h.db.query(`DELETE FROM conversations.conversation_topics WHERE conversation_id = $1`, [ids[2]]);
    await h.db.query(`UPDATE conversations.conversation_search SET search_text = 'stale' WHERE id = $1`, [ids[3]]);
    const drift = await rebuildConversationsProjection({ databaseUrl: h.databaseUrl });
    expect(drift).toMatchObject({ missing: 1, different: 1, extra: 0, totals_identical: false, identical: false, swapped: false });
    expect(drift.examples.sort()).toEqual([ids[0], ids[1]].sort());
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl, swap: true })).toMatchObject({ identical: false, swapped: true });
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ identical: true });
    expect((await h.list(account, {})).total).toBe(60);
    expect((await h.get(account, ids[0])).summary).not.toBe('tampered');
    const topic = (await h.get(account, ids[2])).topics[0];
    if (topic) expect((await h.list(account, { topic, per_page: '100' })).items.map((i) => i.id)).toContain(ids[2]);
  });

  it('rebuilds per account (same conversation ids in two accounts) and keeps the platform each call had', async () => {
    const otherAccount = `acc_${randomUUID()}`;
    const otherAgent = `agt_${randomUUID()}`;
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: otherAccount, name: 'Other', voice_platform: 'platform_b' });
    const [copy] = generateCalls({ count: 1, seed: 4, agentIds: [otherAgent], idPrefix: 'x' });
    const sameIds = copy.events.map((e) => ({ ...e, conversation_id: ids[5] }));
    await h.publishCallEvents(sameIds, sameIds.map((e) => `${otherAccount}:${e.id}`));
    // Agent One moves to platform_b; its earlier calls stay on platform_a.
    await h.publishAgent({ agent_id: agents[0], account_id: account, name: 'One', voice_platform: 'platform_b' }, 2, 'AgentUpdated');
    await h.agentKnown(agents[0], 2);
    const [fresh] = generateCalls({ count: 1, seed: 5, agentIds: [agents[0]], idPrefix: `rb2${randomUUID().slice(0, 6)}` });
    await h.publishCallEvents(fresh.events);
    await h.eventually(async () => expect((await h.get(otherAccount, ids[5])).agent_id).toBe(otherAgent));
    await h.eventually(async () => expect((await h.get(account, fresh.conversation_id)).technical.voice_platform).toBe('platform_b'));
    const before = await h.get(account, ids[5]);
    expect(before.technical.voice_platform).toBe('platform_a');
    expect((await h.get(otherAccount, ids[5])).technical.voice_platform).toBe('platform_b');

    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({
      streams: 62, live_rows: 62, rebuilt_rows: 62, identical: true,
    });
    expect(await h.get(account, ids[5])).toEqual(before);
    const platforms = await h.db.query(
      `SELECT voice_platform, count(*)::int AS n FROM conversations.conversations WHERE agent_id = $1 GROUP BY voice_platform ORDER BY 1`,
      [agents[0]],
    );
    expect(platforms.rows.map((r) => r.voice_platform)).toEqual(['platform_a', 'platform_b']);
    expect(platforms.rows[1].n).toBe(1);
  });
});
