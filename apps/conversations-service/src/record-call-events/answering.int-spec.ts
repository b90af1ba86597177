import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ConversationsRpc, type CallEvent, type CheckAnsweringReply } from '@voice/contracts';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { advisoryKey } from '../database/locks.js';
import { recordCallEvents } from './record-call-events.handler.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/**
 * The answering rule (conversation/answering.rules.ts) on the JetStream path and in the HTTP pre-check:
 * (a) recorded → accepted, (b) refused before → refused, (c) the call's start decides,
 * (d) no start seen → accepted.
 */
describe('paused and deleted agents: which calls are answered', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const marker = `agt_${randomUUID()}`;
  const at = (hhmm: string) => `2025-06-01T${hhmm}:00.000Z`;

  beforeAll(async () => {
    h = await startHarness();
    await h.publishKnownAgent({ agent_id: marker, account_id: account, name: 'Marker' });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** An agent created at 09:00 and paused at 10:00 (both known before the test goes on). */
  const pausedAgent = async (name: string) => {
    const agentId = `agt_${randomUUID()}`;
    const snapshot = { agent_id: agentId, account_id: account, name };
    await h.publishAgent({ ...snapshot, status: 'active' }, 1, 'AgentCreated', at('09:00'));
    await h.agentKnown(agentId, 1);
    await h.publishAgent({ ...snapshot, status: 'paused' }, 2, 'AgentPaused', at('10:00'));
    await h.agentKnown(agentId, 2);
    return { agentId, snapshot };
  };
  /** Publish, then wait until a marker published behind them was recorded: every event before it was handled. */
  const publishAndSettle = async (events: CallEvent[]) => {
    await h.publishCallEvents(events);
    const m = callEvents(`marker-${randomUUID()}`, marker).started();
    await h.publishCallEvents([m]);
    await h.eventually(async () => expect((await h.get(account, m.conversation_id)).status).toBe('in_progress'));
  };
  const find = (id: string) => h.get(account, id).then((r) => r, () => null);
  /** The pre-check as the gateway asks it; `typed` adds each event's type and id. */
  const check = (events: CallEvent[], typed = true) =>
    h.rpc<CheckAnsweringReply>(ConversationsRpc.checkAnswering, {
      account_id: account,
      events: events.map((e) => ({
        conversation_id: e.conversation_id, agent_id: e.agent_id, occurred_at: e.occurred_at, ...(typed ? { type: e.type, id: e.id } : {}),
      })),
    });
  const refusal = async (conversationId: string) =>
    (await h.db.query(`SELECT agent_id, status, call_started_at FROM conversations.refused_conversations WHERE account_id = $1 AND conversation_id = $2`, [account, conversationId])).rows[0];

  it('(1) a call that started before the pause ends on record even when its end arrives first', async () => {
    const { agentId } = await pausedAgent('P1');
    const c = callEvents(`early-${randomUUID()}`, agentId, at('09:50'));
    const started = c.started();
    const ended = c.ended(15 * 60, { summary: 'done' }); // 10:05, after the pause

    // The pre-check: the end alone (its start not recorded yet) is not refused; nor is the pair.
    expect((await check([ended])).refused).toEqual([]);
    expect((await check([ended, started])).refused).toEqual([]);

    await publishAndSettle([ended]);
    // Nothing tells when the call started yet: accepted (d).
    expect((await find(c.started().conversation_id))?.status).toBe('completed');
    await publishAndSettle([started]);
    expect(await h.get(account, started.conversation_id)).toMatchObject({
      status: 'completed', start_time: '2025-06-01T09:50:00.000Z', end_time: '2025-06-01T10:05:00.000Z', duration: 15 * 60, caller_number: '+14155550123',
    });
    expect(await refusal(started.conversation_id)).toBeUndefined();
  });

  it('(1) the start decides, not the earliest event: a call starting during the pause is refused whole, even with an earlier event', async () => {
    const { agentId } = await pausedAgent('P1b');
    // A platform clock glitch: a progress event stamped before the pause, the start after it.
    const c = callEvents(`during-${randomUUID()}`, agentId, at('10:10'));
    const started = c.started();
    const early = { ...c.progress(0, { duration: 1 }), occurred_at: at('09:59') } as CallEvent;
    expect((await check([early, started])).refused).toEqual([
      { index: 0, agent_id: agentId, status: 'paused' },
      { index: 1, agent_id: agentId, status: 'paused' },
    ]);
    // On the bus, batches are whatever has arrived: published apart, the start is judged first, then the early event is refused with it (b).
    await publishAndSettle([started]);
    await publishAndSettle([early]);
    expect(await find(started.conversation_id)).toBeNull();
    expect(await refusal(started.conversation_id)).toMatchObject({ agent_id: agentId, status: 'paused' });
  });

  it('(1) two replicas recording one call\'s start and end at once: the end, first to get the lock, is not refused', async () => {
    const { agentId } = await pausedAgent('P1r');
    const { dataSource } = h.service.app.get<ServiceContext>(SERVICE_CONTEXT);
    const c = callEvents(`race-${randomUUID()}`, agentId, at('09:50'));
    const started = c.started();
    const ended = c.ended(15 * 60); // 10:05
    // Hold the conversation's lock, queue the end's batch, then the start's: the end is judged first, the start not stored yet.
    const holder = await h.db.connect();
    const key = String(advisoryKey('conversation', account, started.conversation_id));
    const waiting = async () => (await h.db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0].n as number;
    try {
      await holder.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      const endBatch = recordCallEvents(dataSource, [ended]);
      await h.eventually(async () => expect(await waiting()).toBe(1));
      const startBatch = recordCallEvents(dataSource, [started]);
      await h.eventually(async () => expect(await waiting()).toBe(2));
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
      expect([await endBatch, await startBatch]).toEqual([[{ result: 'recorded' }], [{ result: 'recorded' }]]);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      holder.release();
    }
    expect(await h.get(account, started.conversation_id)).toMatchObject({ status: 'completed', start_time: '2025-06-01T09:50:00.000Z', duration: 15 * 60 });
  });

  it('(2) a refused call stays refused after the agent is resumed: its later events do not make a new conversation', async () => {
    const { agentId, snapshot } = await pausedAgent('P2');
    const c = callEvents(`during-${randomUUID()}`, agentId, at('10:30'));
    const started = c.started();
    // The pre-check refuses the start but writes nothing: the JetStream path remembers the refusal.
    expect((await check([started])).refused).toEqual([{ index: 0, agent_id: agentId, status: 'paused' }]);
    expect(await refusal(started.conversation_id)).toBeUndefined();
    await publishAndSettle([started]);
    expect(await find(started.conversation_id)).toBeNull();
    expect(await refusal(started.conversation_id)).toEqual({ agent_id: agentId, status: 'paused', call_started_at: new Date(at('10:30')) });

    await h.publishAgent({ ...snapshot, status: 'active' }, 3, 'AgentResumed', at('11:00'));
    await h.agentKnown(agentId, 3);
    const ended = c.ended(50 * 60); // 11:20, after the resume
    const transcript = c.transcript(51 * 60, [{ speaker: 'agent', text: 'late', start_ms: 0, end_ms: 10 }]);
    expect((await check([ended, transcript])).refused).toEqual([
      { index: 0, agent_id: agentId, status: 'paused' },
      { index: 1, agent_id: agentId, status: 'paused' },
    ]);
    await publishAndSettle([ended, transcript]);
    expect(await find(started.conversation_id)).toBeNull();
    const { rows: [{ n }] } = await h.db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE account_id = $1 AND stream_id = $2`, [account, started.conversation_id]);
    expect(n).toBe(0);
    // A new call after the resume is answered.
    const fresh = callEvents(`after-${randomUUID()}`, agentId, at('11:05')).started();
    expect((await check([fresh])).refused).toEqual([]);
    await publishAndSettle([fresh]);
    expect((await find(fresh.conversation_id))?.status).toBe('in_progress');
  });

  it('(3) a call recorded before the service learnt of the pause gets its end and transcript', async () => {
    const agentId = `agt_${randomUUID()}`;
    const snapshot = { agent_id: agentId, account_id: account, name: 'P3' };
    await h.publishAgent({ ...snapshot, status: 'active' }, 1, 'AgentCreated', at('09:00'));
    await h.agentKnown(agentId, 1);
    const c = callEvents(`lag-${randomUUID()}`, agentId, at('10:05'));
    await publishAndSettle([c.started()]);
    expect((await find(c.started().conversation_id))?.status).toBe('in_progress');
    // The pause (at 10:00) reaches the service after the call's start was recorded (relay lag).
    await h.publishAgent({ ...snapshot, status: 'paused' }, 2, 'AgentPaused', at('10:00'));
    await h.agentKnown(agentId, 2);
    const later = [c.transcript(4 * 60, [{ speaker: 'caller', text: 'hello', start_ms: 0, end_ms: 500 }]), c.ended(5 * 60)];
    expect((await check(later)).refused).toEqual([]);
    expect((await check(later, false)).refused).toEqual([]);
    await publishAndSettle(later);
    expect(await h.get(account, c.started().conversation_id)).toMatchObject({ status: 'completed', has_transcript: true, duration: 5 * 60 });
  });

  it('once refused, a call stays refused; call.abandoned counts as a start', async () => {
    const { agentId } = await pausedAgent('P4');
    // Refused by its start, then an abandoned event of the same call: refused as well (b).
    const c = callEvents(`twice-${randomUUID()}`, agentId, at('10:01'));
    await publishAndSettle([c.started()]);
    await publishAndSettle([c.abandoned(5)]);
    expect(await find(c.started().conversation_id)).toBeNull();
    // `call.abandoned` is a start too: an abandoned call during the pause is refused on its own.
    const a = callEvents(`abandoned-${randomUUID()}`, agentId, at('10:02'));
    expect((await check([a.abandoned(0)])).refused).toEqual([{ index: 0, agent_id: agentId, status: 'paused' }]);
    await publishAndSettle([a.abandoned(0)]);
    expect(await find(a.started().conversation_id)).toBeNull();
    expect(await refusal(a.started().conversation_id)).toMatchObject({ status: 'paused' });
  });

  it('the pre-check without event types (a gateway that does not send them) still refuses a start during a pause', async () => {
    const { agentId } = await pausedAgent('P5');
    const during = callEvents(`untyped-${randomUUID()}`, agentId, at('10:30')).started();
    expect((await check([during], false)).refused).toEqual([{ index: 0, agent_id: agentId, status: 'paused' }]);
    // Known limit without types: a lone end occurring after the pause may be the start for all it can tell.
    const early = callEvents(`untyped-early-${randomUUID()}`, agentId, at('09:50'));
    expect((await check([early.ended(15 * 60)], false)).refused).toEqual([{ index: 0, agent_id: agentId, status: 'paused' }]);
    expect((await check([early.ended(15 * 60)], true)).refused).toEqual([]);
  });
});
