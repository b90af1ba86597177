import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { testNatsUrl } from '@voice/testing';
import { startConversationsService, type RunningConversationsService } from '../app.js';
import { rebuildConversationsProjection } from '../rebuild-projection/rebuild-projection.js';
import { generateCalls } from '@voice/call-generator';
import { startHarness, type Harness } from '../testing/harness.js';

jest.setTimeout(90_000);

/** Replicas scale by sharing the durable consumer: concurrent batches touching the same conversations must still converge. */
describe('two replicas on one durable consumer', () => {
  let h: Harness;
  let second: RunningConversationsService;
  const account = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];

  beforeAll(async () => {
    // Small batches, so the two replicas interleave on the same conversations.
    h = await startHarness({ tuning: { batchSize: 8 } });
    second = await startConversationsService({ databaseUrl: h.databaseUrl, natsUrl: testNatsUrl(), namespace: h.namespace, tuning: { batchSize: 8 } });
    for (const agent of agents) await h.publishKnownAgent({ agent_id: agent, account_id: account });
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
  });

  it('every event is recorded once and the read model equals a rebuild from the event store', async () => {
    const calls = generateCalls({ count: 150, seed: 77, agentIds: agents, idPrefix: `r${randomUUID().slice(0, 6)}` });
    const events = calls.flatMap((c) => c.events);
    // Shuffled, and a fifth of them published twice under new message ids.
    const shuffled = fc.sample(fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }), { numRuns: 1, seed: 3 })[0];
    const again = shuffled.filter((_, i) => i % 5 === 0);
    await h.publishCallEvents([...shuffled, ...again], [...shuffled.map((e) => e.id), ...again.map(() => randomUUID())]);
    await h.eventually(async () => {
      const { rows: [{ n }] } = await h.db.query('SELECT count(*)::int AS n FROM conversations.events');
      expect(n).toBe(events.length);
    }, 60_000);
    // Every conversation is projected (the events and their row commit together).
    await h.eventually(async () => {
      const info = await h.db.query(`SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1`, [account]);
      expect(info.rows[0].n).toBe(calls.length);
    });
    expect((await h.list(account, {})).total).toBe(calls.length);
    // Every row, timestamps included, is what re-folding its stream gives; totals and side tables agree.
    const report = await rebuildConversationsProjection({ databaseUrl: h.databaseUrl });
    expect(report).toMatchObject({ identical: true, streams: calls.length });
  });
});
