import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { CallEvent, ConversationListItem, RawQuery } from '@voice/contracts';
import { generateCalls, type SimulatedCall } from '@voice/call-generator';
import { startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/**
 * The list's filters, search, sorts and pagination checked against a plain
 * TypeScript computation over the same generated data.
 */
describe('GET /v1/conversations filters and sorting (independent computation)', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const other = `acc_${randomUUID()}`;
  const agents = [`agt_${randomUUID()}`, `agt_${randomUUID()}`];
  const otherAgent = `agt_${randomUUID()}`;
  let calls: SimulatedCall[];
  let all: ConversationListItem[];
  const searchText = new Map<string, string>();

  beforeAll(async () => {
    // A low deep-page threshold so the paging tests cover both read paths (and the reverse read past the middle).
    h = await startHarness({ tuning: { deepPageOffset: 50 } });
    await h.publishAgent({ agent_id: agents[0], account_id: account, name: 'Alpha' });
    await h.publishAgent({ agent_id: agents[1], account_id: account, name: 'Beta' });
    await h.publishAgent({ agent_id: otherAgent, account_id: other, name: 'Other' });
    calls = generateCalls({ count: 240, seed: 42, agentIds: agents, idPrefix: `f${randomUUID().slice(0, 6)}` });
    const foreign = generateCalls({ count: 20, seed: 7, agentIds: [otherAgent], idPrefix: `x${randomUUID().slice(0, 6)}` });
    await h.publishCallEvents([...calls, ...foreign].flatMap((c) => c.events));
    for (const call of calls) searchText.set(call.conversation_id, textOf(call.events));
    all = await h.eventually(async () => {
      const items = await listAll({});
      expect(items).toHaveLength(calls.length);
      expect(items.filter((i) => i.status === 'in_progress').length).toBe(calls.filter((c) => !c.events.some(isTerminal)).length);
      return items;
    }, 30_000);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  async function listAll(query: RawQuery): Promise<ConversationListItem[]> {
    const items: ConversationListItem[] = [];
    for (let page = 1; ; page++) {
      const result = await h.list(account, { ...query, per_page: '100', page: String(page) });
      items.push(...result.items);
      if (result.items.length < 100) return items;
    }
  }

  const rank = (s: string | null) => (s === 'negative' ? 0 : s === 'neutral' ? 1 : s === 'positive' ? 2 : null);
  function expectedOrder(items: ConversationListItem[], sortBy = 'start_time', order = 'desc'): string[] {
    const sign = order === 'asc' ? 1 : -1;
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0) * sign;
    return [...items]
      .sort((a, b) => {
        if (sortBy === 'duration' && a.duration !== b.duration) return cmp(a.duration, b.duration);
        if (sortBy === 'sentiment') {
          const ra = rank(a.sentiment), rb = rank(b.sentiment);
          if (ra === null && rb !== null) return 1; // unknown sentiment last, both directions
          if (rb === null && ra !== null) return -1;
          if (ra !== rb) return cmp(ra!, rb!);
        }
        return cmp(a.start_time!, b.start_time!) || cmp(a.id, b.id);
      })
      .map((i) => i.id);
  }

  it('lists only the account’s conversations, newest first, with an exact total', async () => {
    const page = await h.list(account, {});
    expect(page).toMatchObject({ total: calls.length, page: 1, per_page: 25 });
    expect(all.map((i) => i.id)).toEqual(expectedOrder(all));
    expect(new Set(all.map((i) => i.id))).toEqual(new Set(calls.map((c) => c.conversation_id)));
  });

  const sample = () => all[17];
  const cases: Array<[string, () => RawQuery, (i: ConversationListItem) => boolean]> = [
    ['agent_id', () => ({ agent_id: agents[1] }), (i) => i.agent_id === agents[1]],
    ['status', () => ({ status: 'failed' }), (i) => i.status === 'failed'],
    ['sentiment', () => ({ sentiment: 'negative' }), (i) => i.sentiment === 'negative'],
    ['outcome (case-insensitive input)', () => ({ outcome: 'Appointment_Booked' }), (i) => i.outcome === 'appointment_booked'],
    ['caller (E.164)', () => ({ caller: sample().caller_number ?? '+14155551000' }), (i) => i.caller_number === (sample().caller_number ?? '+14155551000')],
    ['caller with an unencoded + (arrives as a space)', () => ({ caller: ` ${(sample().caller_number ?? '+14155551000').slice(1)}` }), (i) => i.caller_number === (sample().caller_number ?? '+14155551000')],
    ['min_duration', () => ({ min_duration: '300' }), (i) => i.duration >= 300],
    ['max_duration', () => ({ max_duration: '120' }), (i) => i.duration <= 120],
    ['duration range', () => ({ min_duration: '100', max_duration: '400' }), (i) => i.duration >= 100 && i.duration <= 400],
    ['start_date (start_time only)', () => ({ start_date: '2025-01-10T00:00:00Z' }), (i) => i.start_time! >= '2025-01-10T00:00:00.000Z'],
    ['end_date as a day includes that day', () => ({ end_date: '2025-01-10' }), (i) => i.start_time! <= '2025-01-10T23:59:59.999Z'],
    ['date range with offsets', () => ({ start_date: '2025-01-05T02:00:00+02:00', end_date: '2025-01-20T00:00:00-05:00' }), (i) => i.start_time! >= '2025-01-05T00:00:00.000Z' && i.start_time! <= '2025-01-20T05:00:00.000Z'],
    ['has_recording=true', () => ({ has_recording: 'true' }), (i) => i.has_recording],
    ['has_recording=false', () => ({ has_recording: 'false' }), (i) => !i.has_recording],
    ['has_transcript=false', () => ({ has_transcript: 'false' }), (i) => !i.has_transcript],
    ['topic exact, case-insensitive', () => ({ topic: 'INTERNET' }), (i) => i.topics.some((t) => t.toLowerCase() === 'internet')],
    ['topic is not a substring match', () => ({ topic: 'bill' }), () => false],
    ['topic combined with status', () => ({ topic: 'billing', status: 'completed' }), (i) => i.status === 'completed' && i.topics.some((t) => t.toLowerCase() === 'billing')],
    ['search over summary (case-insensitive)', () => ({ search: 'REFUND' }), (i) => searchText.get(i.id)!.includes('refund')],
    ['search over transcript text', () => ({ search: 'network specialist' }), (i) => searchText.get(i.id)!.includes('network specialist')],
    ['search with a literal %', () => ({ search: '50% off' }), (i) => searchText.get(i.id)!.includes('50% off')],
    ['search with a literal _', () => ({ search: 'first_month' }), (i) => searchText.get(i.id)!.includes('first_month')],
    ['search: _ is not a wildcard', () => ({ search: 'first_mont_' }), () => false],
    ['search: % is not a wildcard', () => ({ search: 'charged%invoice' }), () => false],
    ['search combined with a filter', () => ({ search: 'refund', agent_id: agents[0] }), (i) => i.agent_id === agents[0] && searchText.get(i.id)!.includes('refund')],
    ['combined filters', () => ({ status: 'completed', sentiment: 'positive', agent_id: agents[0], min_duration: '60' }),
      (i) => i.status === 'completed' && i.sentiment === 'positive' && i.agent_id === agents[0] && i.duration >= 60],
  ];

  it.each(cases)('filter: %s', async (_name, query, predicate) => {
    const expected = all.filter(predicate);
    const actual = await listAll(query());
    expect(actual.map((i) => i.id)).toEqual(expectedOrder(expected));
    expect((await h.list(account, { ...query(), per_page: '1' })).total).toBe(expected.length);
  });

  it('has data for every filter case (the generated set is not degenerate)', () => {
    for (const [name, query, predicate] of cases) {
      if (!/not a|wildcard/.test(name)) expect([name, all.filter(predicate).length > 0]).toEqual([name, true]);
      void query;
    }
  });

  it.each([
    ['start_time', 'asc'], ['start_time', 'desc'], ['duration', 'asc'], ['duration', 'desc'], ['sentiment', 'asc'], ['sentiment', 'desc'],
  ])('sort_by=%s sort_order=%s: order as computed, ties by start_time then id, pages never overlap or skip', async (sortBy, order) => {
    const pages: string[] = [];
    for (let page = 1; page <= Math.ceil(all.length / 7); page++) {
      const result = await h.list(account, { sort_by: sortBy, sort_order: order, per_page: '7', page: String(page) });
      pages.push(...result.items.map((i) => i.id));
    }
    expect(pages).toEqual(expectedOrder(all, sortBy, order));
  });

  it('sentiment order is negative < neutral < positive with unknown sentiment last', async () => {
    const asc = await listAll({ sort_by: 'sentiment', sort_order: 'asc' });
    const desc = await listAll({ sort_by: 'sentiment', sort_order: 'desc' });
    const runs = (items: ConversationListItem[]) => items.map((i) => i.sentiment).filter((s, k, arr) => k === 0 || arr[k - 1] !== s);
    expect(runs(asc)).toEqual(['negative', 'neutral', 'positive', null]);
    expect(runs(desc)).toEqual(['positive', 'neutral', 'negative', null]);
  });

  it('date filters are exact below the millisecond: a day ends at its last microsecond', async () => {
    // Another account, so the totals the other tests compare stay as generated.
    const edgeAccount = `acc_${randomUUID()}`;
    const edgeAgent = `agt_${randomUUID()}`;
    await h.publishKnownAgent({ agent_id: edgeAgent, account_id: edgeAccount, name: 'Edge' });
    const startedAt = (id: string, start_time: string): CallEvent => ({
      id: `${id}-started`, type: 'call.started', conversation_id: id, agent_id: edgeAgent, occurred_at: start_time,
      data: { caller_number: '+14155550100', start_time },
    });
    const lastOfDay = `edge-${randomUUID().slice(0, 8)}-a`;
    const nextDay = `edge-${randomUUID().slice(0, 8)}-b`;
    await h.publishCallEvents([startedAt(lastOfDay, '2025-01-10T23:59:59.9995Z'), startedAt(nextDay, '2025-01-11T00:00:00Z')]);
    await h.eventually(async () => expect((await h.list(edgeAccount, {})).items).toHaveLength(2), 10_000);
    const ids = async (query: RawQuery) => (await h.list(edgeAccount, query)).items.map((i) => i.id);
    expect(await ids({ end_date: '2025-01-10' })).toEqual([lastOfDay]);
    expect(await ids({ start_date: '2025-01-11' })).toEqual([nextDay]);
    expect(await ids({ start_date: '2025-01-10T23:59:59.9995Z', end_date: '2025-01-10T23:59:59.9995Z' })).toEqual([lastOfDay]);
    expect(await ids({ start_date: '0099-01-01', end_date: '9999-12-31', sort_order: 'asc' })).toEqual([lastOfDay, nextDay]);
  });

  it('caps per_page at 100 and returns an empty page past the end', async () => {
    expect(await h.list(account, { per_page: '1000' })).toMatchObject({ per_page: 100 });
    expect((await h.list(account, { per_page: '1000' })).items).toHaveLength(100);
    expect(await h.list(account, { page: '999' })).toMatchObject({ items: [], total: calls.length, page: 999 });
  });

  it.each([
    [{ status: 'done' }, { code: 'invalid_parameter', field: 'status', valid_values: ['in_progress', 'completed', 'failed', 'abandoned'] }],
    [{ sentiment: 'angry' }, { code: 'invalid_parameter', field: 'sentiment', valid_values: ['positive', 'neutral', 'negative'] }],
    [{ sort_by: 'name' }, { code: 'invalid_parameter', field: 'sort_by', valid_values: ['start_time', 'duration', 'sentiment'] }],
    [{ sort_order: 'up' }, { code: 'invalid_parameter', field: 'sort_order', valid_values: ['asc', 'desc'] }],
    [{ has_recording: 'yes' }, { code: 'invalid_parameter', field: 'has_recording', valid_values: ['true', 'false'] }],
    [{ has_transcript: '1' }, { code: 'invalid_parameter', field: 'has_transcript', valid_values: ['true', 'false'] }],
    [{ start_date: '31/01/2025' }, { code: 'invalid_date_format', field: 'start_date' }],
    [{ end_date: '2025-02-30' }, { code: 'invalid_date_format', field: 'end_date' }],
    // Years PostgreSQL refuses (no year 0) or that leave 0001–9999 in UTC: 400, not a 500 from the database.
    [{ start_date: '0000-01-01T00:00:00Z' }, { code: 'invalid_date_format', field: 'start_date' }],
    [{ end_date: '0000-06-01T00:00:00Z' }, { code: 'invalid_date_format', field: 'end_date' }],
    [{ start_date: '9999-12-31T23:59:59-10:00' }, { code: 'invalid_date_format', field: 'start_date' }],
    [{ page: '0' }, { code: 'invalid_parameter', field: 'page' }],
    [{ page: 'two' }, { code: 'invalid_parameter', field: 'page' }],
    [{ per_page: '-5' }, { code: 'invalid_parameter', field: 'per_page' }],
    [{ per_page: '2.5' }, { code: 'invalid_parameter', field: 'per_page' }],
    [{ min_duration: '1.5' }, { code: 'invalid_parameter', field: 'min_duration' }],
    [{ min_duration: '500', max_duration: '100' }, { code: 'invalid_parameter', field: 'min_duration' }],
    [{ min_cost: '-0.25' }, { code: 'invalid_parameter', field: 'min_cost' }],
    [{ max_cost: '1e2' }, { code: 'invalid_parameter', field: 'max_cost' }],
    [{ min_cost: '0.5', max_cost: '0.25' }, { code: 'invalid_parameter', field: 'min_cost' }],
    [{ caller: '555-1234' }, { code: 'invalid_parameter', field: 'caller' }],
    [{ colour: 'red' }, { code: 'invalid_parameter', field: 'colour' }],
    [{ status: ['completed', 'failed'] }, { code: 'invalid_parameter', field: 'status' }],
  ] as Array<[RawQuery, object]>)('rejects %j', async (query, error) => {
    await expect(h.list(account, query)).rejects.toEqual(expect.objectContaining({ ...error, message: expect.any(String) }));
  });
});

function isTerminal(e: CallEvent): boolean {
  return e.type === 'call.ended' || e.type === 'call.failed' || e.type === 'call.abandoned';
}

/** What a user would search: summary and every transcript line, lower-cased. */
function textOf(events: CallEvent[]): string {
  const parts: string[] = [];
  for (const e of events) {
    if (e.type === 'call.ended' && e.data.summary) parts.push(e.data.summary);
    if (e.type === 'call.transcript') parts.push(...e.data.segments.map((s) => s.text));
  }
  return parts.join('\n').toLowerCase();
}

describe('GET /v1/conversations while calls are being recorded', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Busy' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('never answers a page that disagrees with its own total', async () => {
    const calls = generateCalls({ count: 150, seed: 11, agentIds: [agent], idPrefix: `w${randomUUID().slice(0, 6)}` });
    // Published call by call, so the projection commits many times while four readers list.
    const publishing = (async () => {
      for (const call of calls) await h.publishCallEvents(call.events);
    })();
    const disagreements: string[] = [];
    const totalsSeen = new Set<number>();
    const deadline = Date.now() + 30_000;
    const reader = async () => {
      while (Date.now() < deadline) {
        const page = await h.list(account, { per_page: '100' });
        totalsSeen.add(page.total);
        if (page.items.length !== Math.min(100, page.total)) disagreements.push(`${page.items.length} rows under a total of ${page.total}`);
        if (page.total === calls.length) return;
      }
    };
    await Promise.all([reader(), reader(), reader(), reader()]);
    await publishing;
    expect(disagreements).toEqual([]);
    expect(Math.max(...totalsSeen)).toBe(calls.length);
    // Read while recording, not only after it.
    expect(totalsSeen.size).toBeGreaterThan(2);
  });
});
