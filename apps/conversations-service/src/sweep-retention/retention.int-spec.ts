import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { rebuildConversationsProjection } from '../rebuild-projection/rebuild-projection.js';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

jest.setTimeout(90_000);

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

describe('retention: every sweep applies each agent’s limits', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const limited = `agt_${randomUUID()}`;
  const keeping = `agt_${randomUUID()}`;
  const prefix = randomUUID().slice(0, 8);
  const ids = { old: `${prefix}-old`, middle: `${prefix}-middle`, recent: `${prefix}-recent`, keptOld: `${prefix}-kept-old` };

  const call = (id: string, agentId: string, startIso: string) => {
    const c = callEvents(id, agentId, startIso);
    return [c.started('+14155550123'), c.ended(60, { summary: 'Booked a visit', recording_url: `https://rec.example.com/${id}.mp3` })];
  };

  beforeAll(async () => {
    // A sweep every 300 ms; the agent keeps recordings 7 days and conversations 30.
    h = await startHarness({ tuning: { retentionSweepMs: 300 } });
    await h.publishKnownAgent({ agent_id: limited, account_id: account, retention: { conversations_days: 30, recordings_days: 7 } });
    await h.publishKnownAgent({ agent_id: keeping, account_id: account });
    const events = [
      ...call(ids.old, limited, daysAgo(40)), ...call(ids.middle, limited, daysAgo(10)), ...call(ids.recent, limited, daysAgo(1)),
      ...call(ids.keptOld, keeping, daysAgo(400)),
    ];
    await h.publishCallEvents(events);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('past recordings_days the recording is gone from every copy; past conversations_days the conversation is erased with a tombstone', async () => {
    await h.eventually(async () => {
      const listed = (await h.list(account, { per_page: '100' })).items;
      expect(listed.map((c) => [c.id, c.has_recording]).sort()).toEqual([[ids.keptOld, true], [ids.middle, false], [ids.recent, true]].sort());
    }, 20_000);
    expect((await h.get(account, ids.middle)).content.recording_url).toBeNull();
    expect((await h.get(account, ids.recent)).content.recording_url).toBe(`https://rec.example.com/${ids.recent}.mp3`);
    const { rows: urls } = await h.db.query(`SELECT stream_id FROM conversations.events WHERE data->'data' ? 'recording_url' ORDER BY stream_id`);
    expect(urls.map((r) => r.stream_id)).toEqual([ids.keptOld, ids.recent].sort());
    expect((await h.db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE stream_id = $1`, [ids.old])).rows[0].n).toBe(0);
    const { rows: tombstones } = await h.db.query('SELECT conversation_id, reason FROM conversations.erased_conversations');
    expect(tombstones).toEqual([{ conversation_id: ids.old, reason: 'retention' }]);
    // Counts and totals follow (a filtered total comes from them), and a rebuild brings neither back.
    expect((await h.list(account, { has_recording: 'true' })).total).toBe(2);
    expect((await h.list(account, {})).total).toBe(3);
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ identical: true, totals_identical: true, live_rows: 3 });
  });

  it('a late event of a conversation erased by retention does not bring it back', async () => {
    const late = callEvents(ids.old, limited, daysAgo(40)).progress(30, { sentiment: 'negative' });
    const witness = call(`${prefix}-witness`, keeping, daysAgo(2));
    await h.publishCallEvents([{ ...late, id: `${late.id}-late` }, ...witness]);
    await h.eventually(async () => expect((await h.list(account, {})).total).toBe(4));
    await expect(h.get(account, ids.old)).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));
  });
});
