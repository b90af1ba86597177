import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { CallEvent } from '@voice/contracts';
import { rebuildConversationsProjection } from '../rebuild-projection/rebuild-projection.js';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/**
 * Calls as voice platforms' webhooks report them: "ended" first and the end-of-call report later,
 * live transcripts before the final one, costs and latencies, a withheld caller.
 */
describe('platform call details → conversation records', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
    await h.publishKnownAgent({ agent_id: agent, account_id: account, name: 'Front Desk', voice_platform: 'platform_a' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const newCall = () => callEvents(`conv-${randomUUID()}`, agent);

  it('a later call.ended with the report refines the completed record; the detail shows the technical fields', async () => {
    const c = newCall();
    const id = c.started().conversation_id;
    // The platform's "ended" message: no duration yet, and a withheld caller.
    await h.publishCallEvents([
      c.event('call.started', 0, { start_time: c.at(0), platform_call_id: 'pa-call-1' }),
      c.progress(30, { duration: 30 }),
      c.event('call.ended', 95, { end_time: c.at(95), end_reason: 'customer-ended-call', platform_call_id: 'pa-call-1' }),
    ]);
    const first = await h.eventually(async () => {
      const detail = await h.get(account, id);
      expect(detail.status).toBe('completed');
      return detail;
    });
    expect(first).toMatchObject({ caller_number: null, duration: 30, summary: null });
    expect(first.technical).toMatchObject({ platform_call_id: 'pa-call-1', end_reason: 'customer-ended-call', cost: null, latency: [] });

    const report = c.ended(97, {
      duration: 95, summary: 'Booked a cleaning.', sentiment: 'positive',
      cost: { amount: 0.1842, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.0711 }, { component: 'telephony', amount: 0.1131 }] },
      latency: [{ component: 'llm', p50_ms: 410, p90_ms: 640 }],
      errors: [{ code: 'jitter', message: 'brief' }],
    });
    // The report twice (a platform retry under a new id): its error is kept once.
    await h.publishCallEvents([report, { ...report, id: `${report.id}-retry`, occurred_at: c.at(98) }]);
    const refined = await h.eventually(async () => {
      const detail = await h.get(account, id);
      expect(detail.summary).toBe('Booked a cleaning.');
      expect(detail.end_time).toBe('2025-03-01T10:01:37.000Z');
      return detail;
    });
    expect(refined).toMatchObject({ status: 'completed', duration: 95, sentiment: 'positive', caller_number: null });
    expect(refined.technical).toEqual({
      voice_platform: 'platform_a', quality: null, network: null, errors: [{ code: 'jitter', message: 'brief' }],
      platform_call_id: 'pa-call-1', end_reason: 'customer-ended-call',
      cost: { amount: 0.1842, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.0711 }, { component: 'telephony', amount: 0.1131 }] },
      latency: [{ component: 'llm', p50_ms: 410, p90_ms: 640 }],
    });
    const { rows } = await h.db.query(`SELECT cost_amount::text AS cost FROM conversations.conversations WHERE account_id = $1 AND id = $2`, [account, id]);
    expect(rows).toEqual([{ cost: '0.1842' }]);
  });

  it('provisional transcripts show until the final one, which alone is shown, searched and downloaded', async () => {
    const c = newCall();
    const id = c.started().conversation_id;
    const live = (s: number, text: string, start_ms: number, anchor: 'call_start' | 'occurred_at'): CallEvent =>
      c.event('call.transcript', s, { provisional: true, anchor, segments: [{ speaker: 'caller', text, start_ms, end_ms: start_ms + 1200 }] });
    await h.publishCallEvents([
      c.started(),
      live(5, 'I would like', 4000, 'call_start'),
      live(7, 'I would like a provisional table', 4000, 'call_start'),
      live(9, 'Tuesday?', 0, 'occurred_at'),
    ]);
    const provisional = await h.eventually(async () => {
      const detail = await h.get(account, id);
      expect(detail.content.transcript.map((s) => s.text)).toEqual(['I would like a provisional table', 'Tuesday?']);
      return detail;
    });
    // Anchored at occurred_at: 9 s after the call started.
    expect(provisional.content.transcript[1]).toMatchObject({ start_ms: 9000, end_ms: 10_200 });
    expect(provisional.has_transcript).toBe(true);

    await h.publishCallEvents([
      c.transcript(70, [
        { speaker: 'agent', text: 'Hello, Acme Dental.', start_ms: 0, end_ms: 1500 },
        { speaker: 'caller', text: 'I would like a final table.', start_ms: 6900, end_ms: 8300 },
      ]),
      c.ended(60),
    ]);
    const final = await h.eventually(async () => {
      const detail = await h.get(account, id);
      expect(detail.content.transcript.map((s) => s.text)).toEqual(['Hello, Acme Dental.', 'I would like a final table.']);
      // The end may be recorded in a later batch than the final transcript: wait for both.
      expect(detail.status).toBe('completed');
      return detail;
    });
    expect((await h.list(account, { search: 'provisional' })).items.map((i) => i.id)).not.toContain(id);
    expect((await h.list(account, { search: 'final table' })).items.map((i) => i.id)).toContain(id);
    const text = await h.transcript(account, id, 'text');
    expect(text).toMatchObject({ format: 'text', body: 'Agent: Hello, Acme Dental.\nCaller: I would like a final table.\n' });
  });

  it('min_cost/max_cost select by the reported cost, exactly; calls without a cost match no cost filter', async () => {
    const costs = [0, 0.1, 0.25, 0.2500001, 1.5, undefined];
    const ids: string[] = [];
    for (const amount of costs) {
      const c = newCall();
      ids.push(c.started().conversation_id);
      await h.publishCallEvents([c.started(), c.ended(30, amount === undefined ? {} : { cost: { amount, currency: 'USD' } })]);
    }
    const [free, dime, quarter, overQuarter, expensive, unknown] = ids;
    await h.eventually(async () => {
      const { items } = await h.list(account, { per_page: '100' });
      expect(ids.every((id) => items.some((i) => i.id === id && i.status === 'completed'))).toBe(true);
    });
    const select = async (query: Record<string, string>) =>
      (await h.list(account, { ...query, per_page: '100' })).items.map((i) => i.id).filter((id) => ids.includes(id)).sort();
    expect(await select({ min_cost: '0.25' })).toEqual([quarter, overQuarter, expensive].sort());
    expect(await select({ max_cost: '0.25' })).toEqual([free, dime, quarter].sort());
    expect(await select({ min_cost: '0.1', max_cost: '0.25' })).toEqual([dime, quarter].sort());
    expect(await select({ min_cost: '0', max_cost: '0' })).toEqual([free]);
    expect(await select({ min_cost: '0.25000010' })).toEqual([overQuarter, expensive].sort());
    expect(await select({})).toContain(unknown);
    expect(await select({ min_cost: '0' })).not.toContain(unknown);
    // The total counts the same rows.
    const page = await h.list(account, { min_cost: '0.25', per_page: '1' });
    expect(page.total).toBe(3);
  });

  it('the read model with the new columns is rebuilt identically from the events', async () => {
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ identical: true, different: 0, missing: 0, extra: 0 });
  });
});
