import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { CALL_EVENTS_STREAM, ConversationsRpc, namespacedStream, type CallEvent, type CheckAnsweringReply } from '@voice/contracts';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { CALL_EVENTS_DURABLE } from './call-events.consumer.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

describe('call events over JetStream → conversation records', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const otherAccount = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;
  const quietAgent = `agt_${randomUUID()}`;
  const otherAgent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
    // Known before the first call event: published is not yet consumed.
    await h.publishKnownAgent({ agent_id: agent, account_id: account, name: 'Front Desk', voice_platform: 'platform_b' });
    await h.publishKnownAgent({ agent_id: quietAgent, account_id: account, name: 'Quiet', recording_enabled: false, transcription_enabled: false });
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: otherAccount, name: 'Elsewhere' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const parked = async (agentId: string) =>
    (await h.db.query(`SELECT count(*)::int AS n FROM conversations.parked_call_events WHERE agent_id = $1`, [agentId])).rows[0].n as number;
  /** Messages delivered to the service's consumer and not acknowledged yet. */
  const pendingAcks = async () => {
    const info = await (await jetstreamManager(h.nc)).consumers.info(namespacedStream(h.namespace, CALL_EVENTS_STREAM), CALL_EVENTS_DURABLE);
    return info.num_ack_pending + info.num_pending;
  };

  it('folds a full call into a completed record with every list field', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const events = [
      c.started('+14155550123'),
      c.progress(30, { duration: 30, sentiment: 'negative', topics: ['billing'] }),
      c.transcript(40, [
        { speaker: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1500 },
        { speaker: 'caller', text: 'My invoice is wrong.', start_ms: 1600, end_ms: 3000 },
      ]),
      c.ended(120, { summary: 'Invoice corrected.', outcome: 'resolved', recording_url: 'https://rec.example.com/1.mp3', language: 'en' }),
    ];
    await h.publishCallEvents(events);
    const id = events[0].conversation_id;
    const item = await h.eventually(async () => {
      const page = await h.list(account, {});
      const found = page.items.find((i) => i.id === id);
      expect(found?.status).toBe('completed');
      return found!;
    });
    expect(item).toEqual({
      id,
      agent_id: agent,
      agent_name: 'Front Desk',
      caller_number: '+14155550123',
      status: 'completed',
      start_time: '2025-03-01T10:00:00.000Z',
      end_time: '2025-03-01T10:02:00.000Z',
      duration: 120,
      sentiment: 'negative',
      outcome: 'resolved',
      topics: ['billing'],
      has_recording: true,
      has_transcript: true,
      summary: 'Invoice corrected.',
      created_at: expect.any(String),
    });
    const detail = await h.get(account, id);
    expect(detail.technical.voice_platform).toBe('platform_b');
    expect(detail.content.recording_url).toBe('https://rec.example.com/1.mp3');
    expect(detail.content.transcript.map((s) => s.text)).toEqual(['Hello, how can I help?', 'My invoice is wrong.']);
  });

  it('never stores a recording or transcript for an agent with those switches off', async () => {
    const c = callEvents(`conv-${randomUUID()}`, quietAgent);
    const events = [
      c.started(),
      c.transcript(10, [{ speaker: 'agent', text: 'secret', start_ms: 0, end_ms: 100 }]),
      c.ended(20, { recording_url: 'https://rec.example.com/2.mp3' }),
    ];
    await h.publishCallEvents(events);
    const detail = await h.eventually(async () => {
      const d = await h.get(account, events[0].conversation_id);
      expect(d.status).toBe('completed');
      return d;
    });
    expect(detail).toMatchObject({ has_recording: false, has_transcript: false, content: { recording_url: null, transcript: [] } });
    const stored = await h.db.query(`SELECT data::text FROM conversations.events WHERE stream_id = $1`, [events[0].conversation_id]);
    expect(stored.rows.map((r) => r.data).join(' ')).not.toMatch(/secret|rec\.example\.com/);
    await expect(h.transcript(account, events[0].conversation_id, 'json')).rejects.toMatchObject({ code: 'transcript_not_available' });
  });

  it('parks an event whose agent is not known yet, and records it once the agent arrives', async () => {
    const lateAgent = `agt_${randomUUID()}`;
    const c = callEvents(`conv-${randomUUID()}`, lateAgent);
    const events = [c.started(), c.ended(60, { outcome: 'transferred' })];
    await h.publishCallEvents(events);
    await h.eventually(async () => expect(await parked(lateAgent)).toBe(2));
    expect((await h.list(account, { agent_id: lateAgent })).total).toBe(0);
    await h.publishAgent({ agent_id: lateAgent, account_id: account, name: 'Late' });
    const item = await h.eventually(async () => {
      const page = await h.list(account, { agent_id: lateAgent });
      expect(page.items[0]?.status).toBe('completed');
      return page.items[0];
    });
    expect(item).toMatchObject({ agent_name: 'Late', outcome: 'transferred' });
    expect(await parked(lateAgent)).toBe(0);
  });

  it('a burst of events for an unknown agent does not hold up anyone else; all are recorded once the agent is known', async () => {
    const typo = `agt_${randomUUID()}`;
    const burst = Array.from({ length: 3000 }, (_, i) => callEvents(`burst-${i}-${randomUUID()}`, typo).started());
    await h.publishCallEvents(burst);
    // An event of a known agent, published behind the burst, is still listed promptly (the bound is generous for a
    // loaded CI machine; the one-second freshness is measured by the benchmarks, not asserted here).
    const fresh = callEvents(`conv-${randomUUID()}`, agent).started();
    await h.publishCallEvents([fresh]);
    const t0 = Date.now();
    await h.eventually(async () => expect((await h.get(account, fresh.conversation_id)).status).toBe('in_progress'), 5_000);
    expect(Date.now() - t0).toBeLessThan(3_000);
    // Every burst event is acknowledged and kept: nothing waits on the bus.
    await h.eventually(async () => expect(await parked(typo)).toBe(burst.length), 30_000);
    await h.eventually(async () => expect(await pendingAcks()).toBe(0), 10_000);

    // The same events again (a redelivery, or a publisher's retry) are parked once.
    await h.publishCallEvents(burst.slice(0, 100), burst.slice(0, 100).map(() => randomUUID()));
    const marker = callEvents(`conv-${randomUUID()}`, agent).started();
    await h.publishCallEvents([marker]);
    await h.eventually(async () => expect((await h.get(account, marker.conversation_id)).status).toBe('in_progress'));
    expect(await parked(typo)).toBe(burst.length);

    await h.publishAgent({ agent_id: typo, account_id: account, name: 'Typo fixed' });
    await h.eventually(async () => expect((await h.list(account, { agent_id: typo })).total).toBe(burst.length), 30_000);
    expect(await parked(typo)).toBe(0);
    const { rows: [{ n }] } = await h.db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE data->>'agent_id' = $1`, [typo]);
    expect(n).toBe(burst.length);
  }, 90_000);

  it('events racing their agent\'s first event are each recorded exactly once', async () => {
    for (let round = 0; round < 3; round++) {
      const racer = `agt_${randomUUID()}`;
      const events = Array.from({ length: 400 }, (_, i) => callEvents(`race-${round}-${i}-${randomUUID()}`, racer).started());
      await Promise.all([
        h.publishCallEvents(events.slice(0, 200)),
        h.publishAgent({ agent_id: racer, account_id: account, name: `Racer ${round}` }),
        h.publishCallEvents(events.slice(200)),
      ]);
      await h.eventually(async () => expect((await h.list(account, { agent_id: racer })).total).toBe(events.length), 30_000);
      expect(await parked(racer)).toBe(0);
      const { rows: [{ n }] } = await h.db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE data->>'agent_id' = $1`, [racer]);
      expect(n).toBe(events.length);
    }
  }, 90_000);

  it('terminates an invalid event without blocking the ones behind it', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const bad = { ...c.started(), data: { caller_number: 'not a phone', start_time: 'yesterday' } };
    // A control character in the id is refused on this path too (the gateway answers 400 for it); a publisher that
    // managed to send it under a header-safe Nats-Msg-Id gets it terminated as invalid, like any other invalid event.
    const controlInId = { ...callEvents(`conv-${randomUUID()}`, agent).started(), id: `evt-${randomUUID()}\r\nX: y` };
    const good = callEvents(`conv-${randomUUID()}`, agent).started();
    await h.js.publish(`${h.namespace}.call_events.call.started`, 'this is not json');
    await h.publishCallEvents([bad as never, controlInId, good], [bad.id, `ctl-${randomUUID()}`, good.id]);
    await h.eventually(async () => expect((await h.get(account, good.conversation_id)).status).toBe('in_progress'));
    await expect(h.get(account, bad.conversation_id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.get(account, controlInId.conversation_id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps another account out: not listed, not found, and its agent cannot write into the conversation', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const started = c.started();
    await h.publishCallEvents([started]);
    await h.eventually(async () => expect((await h.get(account, started.conversation_id)).status).toBe('in_progress'));
    await expect(h.get(otherAccount, started.conversation_id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await h.list(otherAccount, {})).items.map((i) => i.id)).not.toContain(started.conversation_id);

    // Same conversation id from another account's agent: a conversation of that account, not a write into this one.
    const intruder = callEvents(started.conversation_id, otherAgent).ended(10, { summary: 'hijacked' });
    await h.publishCallEvents([intruder], [`${otherAccount}:${intruder.id}`]);
    await h.eventually(async () => expect((await h.get(otherAccount, started.conversation_id)).status).toBe('completed'));
    expect(await h.get(account, started.conversation_id)).toMatchObject({ status: 'in_progress', summary: null });
  });

  it('a paused or deleted agent answers no new call; events of calls that started before keep being recorded', async () => {
    const pausable = `agt_${randomUUID()}`;
    const snapshot = { agent_id: pausable, account_id: account, name: 'Pausable' };
    const at = (hhmm: string) => `2025-06-01T${hhmm}:00.000Z`;
    const call = (name: string, startsAt: string) => callEvents(`${name}-${randomUUID()}`, pausable, startsAt);
    /** Publish, then wait until a marker published behind them was recorded: every event before it was handled. */
    const publishAndSettle = async (events: CallEvent[]) => {
      await h.publishCallEvents(events);
      const marker = callEvents(`marker-${randomUUID()}`, agent).started();
      await h.publishCallEvents([marker]);
      await h.eventually(async () => expect((await h.get(account, marker.conversation_id)).status).toBe('in_progress'));
    };
    const exists = (id: string) => h.get(account, id).then(() => true, () => false);
    const check = (events: CallEvent[]) =>
      h.rpc<CheckAnsweringReply>(ConversationsRpc.checkAnswering, {
        account_id: account,
        events: events.map((e) => ({ conversation_id: e.conversation_id, agent_id: e.agent_id, occurred_at: e.occurred_at })),
      });

    await h.publishAgent({ ...snapshot, status: 'active' }, 1, 'AgentCreated', at('09:00'));
    await h.agentKnown(pausable, 1);
    const early = call('early', at('09:50'));
    await publishAndSettle([early.started()]);
    expect(await exists(early.started().conversation_id)).toBe(true);

    // Paused at 10:00: a call starting then or later is refused, the one running since 09:50 goes on.
    await h.publishAgent({ ...snapshot, status: 'paused' }, 2, 'AgentPaused', at('10:00'));
    await h.agentKnown(pausable, 2);
    const whilePaused = call('paused', at('10:00'));
    const pausedEvents = [whilePaused.started(), whilePaused.ended(60)];
    const earlyEnd = [early.transcript(16 * 60, [{ speaker: 'agent', text: 'Still here.', start_ms: 0, end_ms: 900 }]), early.ended(17 * 60)];
    expect((await check([...pausedEvents, ...earlyEnd])).refused).toEqual([
      { index: 0, agent_id: pausable, status: 'paused' },
      { index: 1, agent_id: pausable, status: 'paused' },
    ]);
    await publishAndSettle([...pausedEvents, ...earlyEnd]);
    expect(await exists(whilePaused.started().conversation_id)).toBe(false);
    expect(await h.get(account, early.started().conversation_id)).toMatchObject({ status: 'completed', has_transcript: true });

    // Resumed at 11:00: new calls are answered again; one that started during the pause, delivered late, still is not.
    await h.publishAgent({ ...snapshot, status: 'active' }, 3, 'AgentResumed', at('11:00'));
    await h.agentKnown(pausable, 3);
    const resumed = call('resumed', at('11:05'));
    const lateFromPause = call('late', at('10:30'));
    expect((await check([resumed.started(), lateFromPause.started()])).refused.map((r) => r.index)).toEqual([1]);
    await publishAndSettle([resumed.started(), lateFromPause.started()]);
    expect(await exists(resumed.started().conversation_id)).toBe(true);
    expect(await exists(lateFromPause.started().conversation_id)).toBe(false);

    // Deleted at 12:00: no new call, but the one running since 11:05 ends on record.
    await h.publishAgent({ ...snapshot, status: 'deleted' }, 4, 'AgentDeleted', at('12:00'));
    await h.agentKnown(pausable, 4);
    const afterDelete = call('deleted', at('12:05'));
    expect((await check([afterDelete.started(), resumed.ended(65 * 60)])).refused.map((r) => r.index)).toEqual([0]);
    await publishAndSettle([afterDelete.started(), resumed.ended(65 * 60)]);
    expect(await exists(afterDelete.started().conversation_id)).toBe(false);
    expect(await h.get(account, resumed.started().conversation_id)).toMatchObject({ status: 'completed', duration: 65 * 60 });
    // Refused messages are terminated, not left to be redelivered; nothing of them was stored.
    await h.eventually(async () => expect(await pendingAcks()).toBe(0));
    const { rows: [{ n }] } = await h.db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE stream_id IN ($1, $2, $3)`, [
      whilePaused.started().conversation_id, lateFromPause.started().conversation_id, afterDelete.started().conversation_id,
    ]);
    expect(n).toBe(0);
  });

  it('conversation ids and event ids are per account: the same ids in two accounts are two conversations', async () => {
    const id = `call-${randomUUID().slice(0, 8)}`;
    const mine = callEvents(id, agent);
    const theirs = callEvents(id, otherAgent);
    const ours = [mine.started('+14155550001'), mine.ended(30, { summary: 'ours' })];
    const other = [theirs.started('+14155550002'), theirs.ended(90, { summary: 'theirs' })];
    // Same event ids in both accounts (the helper numbers them per conversation id).
    expect(other.map((e) => e.id)).toEqual(ours.map((e) => e.id));
    // Publishers de-duplicate per account on the bus, as the gateway does.
    await h.publishCallEvents(ours, ours.map((e) => `${account}:${e.id}`));
    await h.publishCallEvents(other, other.map((e) => `${otherAccount}:${e.id}`));
    await h.eventually(async () => {
      expect(await h.get(account, id)).toMatchObject({ status: 'completed', caller_number: '+14155550001', duration: 30, summary: 'ours', agent_id: agent });
      expect(await h.get(otherAccount, id)).toMatchObject({ status: 'completed', caller_number: '+14155550002', duration: 90, summary: 'theirs', agent_id: otherAgent });
    });
    expect((await h.list(account, { agent_id: agent, per_page: '100' })).items.filter((i) => i.id === id)).toHaveLength(1);
    expect((await h.list(otherAccount, { per_page: '100' })).items.filter((i) => i.id === id).map((i) => i.summary)).toEqual(['theirs']);

    // A true duplicate within one account (same event id, even under a new message id) changes nothing.
    const before = await h.get(otherAccount, id);
    const again = { ...other[1], data: { ...other[1].data, summary: 'rewritten' } } as typeof other[1];
    await h.publishCallEvents([again], [randomUUID()]);
    const marker = callEvents(`conv-${randomUUID()}`, otherAgent).started();
    await h.publishCallEvents([marker]);
    await h.eventually(async () => expect((await h.get(otherAccount, marker.conversation_id)).status).toBe('in_progress'));
    expect(await h.get(otherAccount, id)).toEqual(before);
    const { rows } = await h.db.query(`SELECT account_id, count(*)::int AS n FROM conversations.events WHERE stream_id = $1 GROUP BY account_id`, [id]);
    expect(Object.fromEntries(rows.map((r) => [r.account_id, r.n]))).toEqual({ [account]: 2, [otherAccount]: 2 });
  });
});
