import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { generateCalls } from '@voice/call-generator';
import type { CallEvent } from '@voice/contracts';
import { rebuildConversationsProjection } from '../rebuild-projection/rebuild-projection.js';
import { startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(90_000);

/**
 * The topic and search side tables carry each conversation's start_time, status and agent_id so
 * topic and search lists are read from them alone: they must say exactly what the rows say after
 * every write, whatever order the events arrive in, and after a rebuild.
 */
describe('list side tables (conversation_topics, conversation_search)', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];
  let events: CallEvent[];

  /** Rows of the side tables that differ from what the conversations say, both ways (empty when exact). */
  const sideTableDrift = async () => {
    const { rows } = await h.db.query(
      `(SELECT 'topic extra' AS kind, conversation_id AS id FROM (
          SELECT account_id, topic, conversation_id, start_time, status, agent_id FROM conversations.conversation_topics
          EXCEPT SELECT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) t) x)
       UNION ALL
       (SELECT 'topic missing', id FROM (
          SELECT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) t
          EXCEPT SELECT account_id, topic, conversation_id, start_time, status, agent_id FROM conversations.conversation_topics) y)
       UNION ALL
       (SELECT 'search extra', id FROM (
          SELECT account_id, id, search_text, start_time, status, agent_id FROM conversations.conversation_search
          EXCEPT SELECT account_id, id, search_text, start_time, status, agent_id FROM conversations.conversations) z)
       UNION ALL
       (SELECT 'search missing', id FROM (
          SELECT account_id, id, search_text, start_time, status, agent_id FROM conversations.conversations
          EXCEPT SELECT account_id, id, search_text, start_time, status, agent_id FROM conversations.conversation_search) w)`,
    );
    return rows;
  };

  /** Kept counts that differ from a plain count of the rows (empty when exact). */
  const countDrift = async () => {
    const { rows } = await h.db.query(
      `SELECT facet, value, kept.conversations AS kept, derived.n AS derived
         FROM (SELECT * FROM conversations.conversation_counts WHERE account_id = $1 AND conversations <> 0) kept
         FULL JOIN (
           SELECT facet, value, count(*)::bigint AS n FROM (
             SELECT 'status' AS facet, status AS value FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'agent_id', agent_id FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'status:agent_id', status || ':' || agent_id FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'sentiment', sentiment FROM conversations.conversations WHERE account_id = $1 AND sentiment IS NOT NULL
             UNION ALL SELECT 'outcome', outcome FROM conversations.conversations WHERE account_id = $1 AND outcome IS NOT NULL
             UNION ALL SELECT 'has_recording', has_recording::text FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'has_transcript', has_transcript::text FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'topic', t FROM conversations.conversations c, LATERAL (SELECT DISTINCT t FROM unnest(c.topics_lower) t) u WHERE c.account_id = $1
             UNION ALL SELECT 'status:topic', c.status || ':' || t FROM conversations.conversations c, LATERAL (SELECT DISTINCT t FROM unnest(c.topics_lower) t) u WHERE c.account_id = $1
             UNION ALL SELECT 'duration', duration::text FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'day', to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'day:status:' || status, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'day:has_recording:' || has_recording, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'hour:' || to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD'), to_char(start_time AT TIME ZONE 'UTC', 'HH24') FROM conversations.conversations WHERE account_id = $1
             UNION ALL SELECT 'day:topic:' || t, to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD')
                         FROM conversations.conversations c, LATERAL (SELECT DISTINCT t FROM unnest(c.topics_lower) t) u WHERE c.account_id = $1
             UNION ALL SELECT 'day:status:' || c.status || ':topic:' || t, to_char(c.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD')
                         FROM conversations.conversations c, LATERAL (SELECT DISTINCT t FROM unnest(c.topics_lower) t) u WHERE c.account_id = $1
           ) f GROUP BY facet, value
         ) derived USING (facet, value)
        WHERE kept.conversations IS DISTINCT FROM derived.n`,
      [account],
    );
    return rows;
  };

  /** Every id of a list, page by page, and its total. */
  const listAll = async (query: Record<string, string>, perPage = 7) => {
    const ids: string[] = [];
    let total = -1;
    for (let page = 1; ; page++) {
      const answer = await h.list(account, { ...query, per_page: String(perPage), page: String(page) });
      total = answer.total;
      ids.push(...answer.items.map((i) => i.id));
      if (answer.items.length < perPage) break;
    }
    return { ids, total };
  };

  /** The same list computed plainly on the conversations. */
  const expected = async (where: string, params: unknown[], order: 'ASC' | 'DESC') => {
    const { rows } = await h.db.query(
      `SELECT id FROM conversations.conversations c WHERE c.account_id = $1 AND ${where} ORDER BY c.start_time ${order}, c.id ${order}`,
      [account, ...params],
    );
    return rows.map((r: { id: string }) => r.id);
  };

  const listsAgreeWithPlainQueries = async () => {
    const { rows: topics } = await h.db.query(
      `SELECT DISTINCT t FROM conversations.conversations c, unnest(c.topics_lower) t WHERE c.account_id = $1 ORDER BY 1 LIMIT 2`, [account]);
    expect(topics.length).toBeGreaterThan(0);
    for (const { t: topic } of topics) {
      for (const [query, where, params] of [
        [{ topic }, `$2 = ANY (c.topics_lower)`, [topic]],
        [{ topic, status: 'completed', sort_order: 'asc' }, `$2 = ANY (c.topics_lower) AND c.status = 'completed'`, [topic]],
        [{ topic, agent_id: agents[1] }, `$2 = ANY (c.topics_lower) AND c.agent_id = $3`, [topic, agents[1]]],
      ] as const) {
        const want = await expected(where, [...params], 'sort_order' in query ? 'ASC' : 'DESC');
        expect(await listAll(query)).toEqual({ ids: want, total: want.length });
      }
    }
    for (const [query, where, params] of [
      [{ search: 'a' }, `c.search_text LIKE '%a%'`, []],
      [{ search: 'the', status: 'completed' }, `c.search_text LIKE '%the%' AND c.status = 'completed'`, []],
      [{ search: 'e', agent_id: agents[0], start_date: '2000-01-01' }, `c.search_text LIKE '%e%' AND c.agent_id = $2`, [agents[0]]],
    ] as const) {
      const want = await expected(where, [...params], 'DESC');
      expect(await listAll(query)).toEqual({ ids: want, total: want.length });
    }
  };

  beforeAll(async () => {
    // Pages from offset 14 on are read in one snapshot (total first, the nearer end, a search in one pass): both paths are listed.
    h = await startHarness({ tuning: { deepPageOffset: 14 } });
    await h.publishKnownAgent({ agent_id: agents[0], account_id: account, name: 'One' });
    await h.publishKnownAgent({ agent_id: agents[1], account_id: account, name: 'Two' });
    // Six days, ~20 calls a day (~4 of each topic): deep pages start inside a day. Two calls start on the edges of a day.
    const calls = generateCalls({ count: 120, seed: 77, agentIds: agents, idPrefix: `st${randomUUID().slice(0, 6)}`, from: '2025-01-01T00:00:00Z', spanDays: 6 });
    for (const [call, startTime] of [[calls[0], '2025-01-03T00:00:00.000000Z'], [calls[1], '2025-01-02T23:59:59.999999Z']] as const) {
      for (const event of call.events) {
        const data = event.data as { start_time?: string };
        if (data.start_time !== undefined) data.start_time = startTime;
      }
    }
    // Each call's events newest first: the end (with its status) arrives before the start (with the real start_time).
    events = calls.flatMap((c) => [...c.events].reverse());
  });
  afterAll(async () => {
    await h?.close();
  });

  it('follow every write, whatever order the events arrive in', async () => {
    const count = async () => (await h.db.query('SELECT count(*)::int AS n FROM conversations.events')).rows[0].n;
    // Three deliveries: the rows are created from late events, then updated as earlier ones arrive.
    for (const part of [0, 1, 2]) {
      const chunk = events.filter((_, i) => i % 3 === part);
      const before = await count();
      await h.publishCallEvents(chunk);
      await h.eventually(async () => expect(await count()).toBe(before + chunk.length));
      expect(await sideTableDrift()).toEqual([]);
      expect(await countDrift()).toEqual([]);
    }
    await listsAgreeWithPlainQueries();
  });

  it('a rebuild finds a side table that disagrees with its rows, and --swap repairs it', async () => {
    const { rows: [victim] } = await h.db.query(
      `SELECT conversation_id AS id FROM conversations.conversation_topics WHERE account_id = $1 ORDER BY 1 LIMIT 1`, [account]);
    await h.db.query(`UPDATE conversations.conversation_topics SET status = 'in_progress', start_time = start_time - interval '1 day' WHERE conversation_id = $1`, [victim.id]);
    await h.db.query(`UPDATE conversations.conversation_search SET agent_id = 'agt_stale' WHERE id = $1`, [victim.id]);
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ different: 0, totals_identical: false, identical: false });
    await rebuildConversationsProjection({ databaseUrl: h.databaseUrl, swap: true });
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ totals_identical: true, identical: true });
    expect(await sideTableDrift()).toEqual([]);
    await listsAgreeWithPlainQueries();
  });

  it('a rebuild finds a count that disagrees with the rows, and --swap repairs it', async () => {
    await h.db.query(`UPDATE conversations.conversation_counts SET conversations = conversations + 1 WHERE account_id = $1 AND facet = 'status' AND value = 'completed'`, [account]);
    expect(await countDrift()).toHaveLength(1);
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ different: 0, totals_identical: false });
    await rebuildConversationsProjection({ databaseUrl: h.databaseUrl, swap: true });
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ totals_identical: true, identical: true });
    expect(await countDrift()).toEqual([]);
  });

  it('date ranges and deep pages found by the day counts list what plain queries list, at the edges of a day too', async () => {
    const { rows: edges } = await h.db.query(
      `SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1 AND start_time IN ('2025-01-03T00:00:00Z', '2025-01-02T23:59:59.999999Z')`, [account]);
    expect(edges[0].n).toBe(2);
    // [query, lower bound, upper bound] as the instants the API reads them as.
    const ranges: Array<[Record<string, string>, string | null, string | null]> = [
      [{}, null, null],
      [{ start_date: '2025-01-02', end_date: '2025-01-04' }, '2025-01-02T00:00:00Z', '2025-01-04T23:59:59.999999Z'],
      [{ start_date: '2025-01-02T12:00:00Z', end_date: '2025-01-05T06:00:00Z' }, '2025-01-02T12:00:00Z', '2025-01-05T06:00:00Z'],
      [{ start_date: '2025-01-03T00:00:00Z' }, '2025-01-03T00:00:00Z', null],
      [{ end_date: '2025-01-02T23:59:59.999999Z' }, null, '2025-01-02T23:59:59.999999Z'],
      [{ start_date: '2025-01-03T01:00:00Z', end_date: '2025-01-03T20:00:00Z' }, '2025-01-03T01:00:00Z', '2025-01-03T20:00:00Z'],
      [{ start_date: '2025-01-02T23:59:59.999999Z', end_date: '2025-01-03T00:00:00Z' }, '2025-01-02T23:59:59.999999Z', '2025-01-03T00:00:00Z'],
      [{ start_date: '2025-01-02T10:00:00Z', end_date: '2025-01-03T10:00:00Z' }, '2025-01-02T10:00:00Z', '2025-01-03T10:00:00Z'],
    ];
    // The account's most frequent topic: its list is long enough for deep pages to start inside a day.
    const { rows: [{ topic }] } = await h.db.query(
      `SELECT t AS topic FROM conversations.conversations c, unnest(c.topics_lower) t WHERE c.account_id = $1 GROUP BY t ORDER BY count(*) DESC, t LIMIT 1`, [account]);
    const filters: Array<[Record<string, string>, string]> = [
      [{}, 'true'], [{ status: 'completed' }, `c.status = 'completed'`], [{ has_recording: 'false' }, 'NOT c.has_recording'],
      [{ topic }, `'${topic}' = ANY (c.topics_lower)`], [{ topic, status: 'completed' }, `'${topic}' = ANY (c.topics_lower) AND c.status = 'completed'`],
    ];
    for (const [range, lo, hi] of ranges) {
      for (const [filter, where] of filters) {
        for (const order of ['DESC', 'ASC'] as const) {
          const want = await expected(`${where} AND ($2::timestamptz IS NULL OR c.start_time >= $2) AND ($3::timestamptz IS NULL OR c.start_time <= $3)`, [lo, hi], order);
          // A topic's list is shorter: pages of 2 put its deep pages inside a day.
          const got = await listAll({ ...range, ...filter, sort_order: order.toLowerCase() }, filter.topic === undefined ? 7 : 2);
          expect({ range, filter, order, ...got }).toEqual({ range, filter, order, ids: want, total: want.length });
        }
      }
    }
  });

  it('a list filtered on one counted value (an agent or a topic with a status, a duration range) has the total of a plain count', async () => {
    const { rows: [sample] } = await h.db.query(
      `SELECT agent_id, status, sentiment, outcome, duration FROM conversations.conversations WHERE account_id = $1 AND outcome IS NOT NULL AND sentiment IS NOT NULL LIMIT 1`, [account]);
    for (const [query, where, params] of [
      [{ status: sample.status }, 'c.status = $2', [sample.status]],
      [{ agent_id: sample.agent_id, status: sample.status }, 'c.agent_id = $2 AND c.status = $3', [sample.agent_id, sample.status]],
      [{ sentiment: sample.sentiment }, 'c.sentiment = $2', [sample.sentiment]],
      [{ outcome: sample.outcome }, 'c.outcome = $2', [sample.outcome]],
      [{ has_recording: 'true' }, 'c.has_recording', []],
      [{ has_transcript: 'false' }, 'NOT c.has_transcript', []],
      [{ min_duration: String(sample.duration) }, 'c.duration >= $2', [sample.duration]],
      [{ min_duration: '0', max_duration: String(sample.duration) }, 'c.duration <= $2', [sample.duration]],
      [{ max_duration: String(sample.duration), sort_order: 'asc' }, 'c.duration <= $2', [sample.duration]],
      [{ agent_id: 'agt_unknown' }, 'false', []],
    ] as const) {
      const want = await expected(where, [...params], 'sort_order' in query ? 'ASC' : 'DESC');
      expect(await listAll(query)).toEqual({ ids: want, total: want.length });
    }
  });
});
