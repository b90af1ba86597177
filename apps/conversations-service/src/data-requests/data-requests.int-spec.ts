import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  accountCallEventSubject, CONVERSATIONS_ERASED_STREAM, DATA_REQUEST_EVENTS_STREAM, dataRequestEventsSubject, ConversationsRpc, DataRequestsRpc, namespacedStream, namespacedSubject,
  type AccessDocument, type CallEvent, type ConversationDetail, type ConversationStats, type ConversationsErased, type DataRequestView, type PageResult,
} from '@voice/contracts';
import { testNatsUrl } from '@voice/testing';
import { randomUUID } from 'node:crypto';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { startConversationsService, type RunningConversationsService } from '../app.js';
import { GetConversationStatsHandler } from '../conversation-stats/conversation-stats.handler.js';
import { GetConversationStats } from '../conversation-stats/conversation-stats.query.js';
import { rebuildConversationsProjection } from '../rebuild-projection/rebuild-projection.js';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { deleteExpiredExports } from './data-requests.store.js';

jest.setTimeout(90_000);

const CALLER = '+14155550111';
const OTHER_CALLER = '+14155550999';

/** Every row of the schema that names one of these conversations of the account. */
async function rowsOf(h: Harness, account: string, ids: string[]): Promise<Record<string, number>> {
  const count = async (sql: string) => (await h.db.query(sql, [account, ids])).rows[0].n as number;
  return {
    events: await count('SELECT count(*)::int AS n FROM conversations.events WHERE account_id = $1 AND stream_id = ANY($2)'),
    conversations: await count('SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1 AND id = ANY($2)'),
    search: await count('SELECT count(*)::int AS n FROM conversations.conversation_search WHERE account_id = $1 AND id = ANY($2)'),
    topics: await count('SELECT count(*)::int AS n FROM conversations.conversation_topics WHERE account_id = $1 AND conversation_id = ANY($2)'),
    changes: await count('SELECT count(*)::int AS n FROM conversations.conversation_changes WHERE account_id = $1 AND conversation_id = ANY($2)'),
    parked: await count(`SELECT count(*)::int AS n FROM conversations.parked_call_events WHERE $1::text IS NOT NULL AND event->>'conversation_id' = ANY($2)`),
  };
}

describe('data requests: erasure and access per caller', () => {
  let h: Harness;
  /** A second replica on the same database and namespace: its stats columns must learn of an erasure another replica made. */
  let replica: RunningConversationsService;
  const account = `acc_${randomUUID()}`;
  const otherAccount = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;
  const otherAgent = `agt_${randomUUID()}`;
  const lateAgent = `agt_${randomUUID()}`;
  const prefix = randomUUID().slice(0, 8);
  const callerCalls = [1, 2, 3].map((n) => `${prefix}-c${n}`);
  const otherCalls = [`${prefix}-o1`, `${prefix}-o2`];
  const parkedCall = `${prefix}-p1`;
  const eventsOf = new Map<string, CallEvent[]>();

  const call = (id: string, agentId: string, caller: string, startIso: string) => {
    const c = callEvents(id, agentId, startIso);
    const events = [
      c.started(caller),
      c.transcript(30, [{ speaker: 'caller', text: `my card is on file, call me back on ${caller}`, start_ms: 0, end_ms: 2000 }]),
      c.ended(60, { summary: `Caller ${caller} asked about billing`, topics: ['billing'], recording_url: `https://rec.example.com/${id}.mp3` }),
    ];
    eventsOf.set(`${agentId}/${id}`, events);
    return events;
  };
  const create = (accountId: string, body: unknown) => h.rpc<DataRequestView>(DataRequestsRpc.create, { account_id: accountId, body });
  const get = (accountId: string, id: string) => h.rpc<DataRequestView>(DataRequestsRpc.get, { account_id: accountId, request_id: id });
  const completed = (accountId: string, id: string) =>
    h.eventually(async () => {
      const request = await get(accountId, id);
      expect(request.status).toBe('completed');
      return request;
    }, 30_000);
  const stats = (accountId: string) => h.rpc<ConversationStats>(ConversationsRpc.stats, { account_id: accountId, query: {} });

  beforeAll(async () => {
    h = await startHarness({ tuning: { dataRequestPollMs: 50, statsMemoryMinRows: 1 } });
    replica = await startConversationsService({ databaseUrl: h.databaseUrl, natsUrl: testNatsUrl(), namespace: h.namespace, tuning: { statsMemoryMinRows: 1 } });
    await h.publishKnownAgent({ agent_id: agent, account_id: account });
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: otherAccount });
    const events = [
      ...callerCalls.flatMap((id, i) => call(id, agent, CALLER, `2025-03-0${i + 1}T10:00:00.000Z`)),
      ...otherCalls.flatMap((id, i) => call(id, agent, OTHER_CALLER, `2025-03-0${i + 4}T10:00:00.000Z`)),
      // The same caller in another account: not this account's to erase.
      ...call(callerCalls[0], otherAgent, CALLER, '2025-03-01T10:00:00.000Z'),
    ];
    await h.publishCallEvents(events, events.map((e) => `${e.agent_id}:${e.id}`));
    // A call of the caller for an agent of the account the service does not know yet: parked, named by its subject.
    const parked = callEvents(parkedCall, lateAgent, '2025-03-07T10:00:00.000Z').started(CALLER);
    await h.js.publish(namespacedSubject(h.namespace, accountCallEventSubject(account, parked.type)), JSON.stringify(parked), { msgID: `p:${parked.id}` });
    await h.eventually(async () => expect((await h.list(account, {})).total).toBe(5));
    await h.eventually(async () => expect((await h.list(otherAccount, {})).total).toBe(1));
    await h.eventually(async () => expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.parked_call_events')).rows[0].n).toBe(1));
    // The stats of the account from columns in memory (every account qualifies here): loaded before the erasure.
    await stats(account);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await stats(account)).total).toBe(5);
  });
  afterAll(async () => {
    await replica?.close();
    await h?.close();
  });

  it('refuses a body that is not a request, naming the field', async () => {
    await expect(create(account, { type: 'erasure', caller_number: '4155550111' })).rejects.toEqual(
      expect.objectContaining({ code: 'invalid_parameter', field: 'caller_number' }));
    await expect(create(account, { type: 'forget', caller_number: CALLER })).rejects.toEqual(
      expect.objectContaining({ code: 'invalid_parameter', field: 'type', valid_values: ['erasure', 'access'] }));
    await expect(create(account, { type: 'access' })).rejects.toEqual(expect.objectContaining({ code: 'missing_required_field', field: 'caller_number' }));
    await expect(create(account, { type: 'access', caller_number: CALLER, extra: 1 })).rejects.toEqual(expect.objectContaining({ code: 'invalid_parameter', field: 'extra' }));
  });

  it('an erasure removes every conversation of the caller in the account from every table, leaves tombstones and announces them', async () => {
    const replicaStats = replica.app.get(GetConversationStatsHandler);
    await replicaStats.memory.warm(account);
    expect(replicaStats.memory.rowsHeld).toBe(5);
    const created = await create(account, { type: 'erasure', caller_number: CALLER });
    expect(created).toMatchObject({ type: 'erasure', caller_number: '**********11', status: 'pending', conversations_found: 0, conversations_done: 0, completed_at: null });
    const done = await completed(account, created.id);
    expect(done).toMatchObject({ conversations_found: 3, conversations_done: 3 });
    expect(done.completed_at).not.toBeNull();

    expect(await rowsOf(h, account, [...callerCalls, parkedCall])).toEqual({ events: 0, conversations: 0, search: 0, topics: 0, changes: 0, parked: 0 });
    const tombstones = await h.db.query('SELECT account_id, conversation_id, reason FROM conversations.erased_conversations ORDER BY conversation_id');
    expect(tombstones.rows).toEqual([...callerCalls, parkedCall].sort().map((id) => ({ account_id: account, conversation_id: id, reason: 'erasure_request' })));
    // Nothing of the caller is left in the request either, but its masked number.
    const { rows: [stored] } = await h.db.query('SELECT caller_number, caller_number_masked FROM conversations.data_requests WHERE id = $1', [created.id]);
    expect(stored).toEqual({ caller_number: null, caller_number_masked: '**********11' });

    // The other caller and the other account keep theirs; the lists, totals and stats say so.
    expect((await h.list(account, {})).items.map((i) => i.id).sort()).toEqual(otherCalls);
    expect((await h.list(account, { search: 'billing' })).total).toBe(2);
    expect((await h.get(otherAccount, callerCalls[0])).caller_number).toBe(CALLER);
    await h.eventually(async () => expect((await stats(account)).total).toBe(2));
    // The other replica's columns in memory: its next answer sees the account's total below what it holds and reloads.
    expect((await replicaStats.execute(new GetConversationStats(account, {}))).total).toBe(2);
    await h.eventually(async () => expect(replicaStats.memory.rowsHeld).toBe(2));
    expect((await replicaStats.execute(new GetConversationStats(account, {}))).total).toBe(2);

    // The notice other services erase their copies by names the conversations, nothing else.
    const jsm = await jetstreamManager(h.nc);
    const stream = namespacedStream(h.namespace, CONVERSATIONS_ERASED_STREAM);
    const notices = await h.eventually(async () => {
      const info = await jsm.streams.info(stream);
      expect(info.state.messages).toBeGreaterThan(0);
      const found: ConversationsErased[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) found.push((await jsm.streams.getMessage(stream, { seq }))!.json());
      // The parked call's notice may be a message of its own, relayed a moment after the others'.
      expect(found.flatMap((n) => n.conversation_ids).sort()).toEqual([...callerCalls, parkedCall].sort());
      return found;
    });
    // The caller's number in none of its forms (random ids may well hold "555"; they cannot hold these eleven digits).
    expect(notices.every((n) => n.account_id === account && n.reason === 'erasure_request' && !JSON.stringify(n).includes(CALLER.slice(1)))).toBe(true);
    // The outbox row goes once the relay has seen the stream acknowledge it, a moment after the message is readable.
    await h.eventually(async () => expect(await h.db.query('SELECT count(*)::int AS n FROM conversations.erasure_notices').then((r) => r.rows[0].n)).toBe(0));

    // Its settlement, for the audit log: published once from the outbox, nothing personal in it.
    const settled = namespacedStream(h.namespace, DATA_REQUEST_EVENTS_STREAM);
    const event = await h.eventually(async () => (await jsm.streams.getMessage(settled, { last_by_subj: namespacedSubject(h.namespace, dataRequestEventsSubject(account)) }))!.json());
    expect(event).toEqual({
      event_id: `data-request-settled:${created.id}`, type: 'DataRequestSettled', account_id: account, request_id: created.id, request_type: 'erasure',
      status: 'completed', conversations_done: 3, settled_at: done.completed_at,
    });
  });

  it('nothing brings an erased conversation back: a redelivery, a platform retry, a replay of parked events, a rebuild', async () => {
    // JetStream redelivery / platform retry: the old events again, under new message ids, and a new event of the call.
    const old = eventsOf.get(`${agent}/${callerCalls[0]}`)!;
    const late = callEvents(callerCalls[1], agent, '2025-03-02T10:00:00.000Z').progress(20, { sentiment: 'positive' });
    const witness = call(`${prefix}-w1`, agent, OTHER_CALLER, '2025-03-09T10:00:00.000Z');
    const again = [...old, { ...late, id: `${late.id}-late` }, ...witness];
    await h.publishCallEvents(again, again.map((e) => `retry:${e.id}`));
    await h.eventually(async () => expect((await h.list(account, {})).total).toBe(3));
    // The parked call's agent becomes known: its parked events (dropped by the erasure) and any new one stay out.
    const parkedAgain = callEvents(parkedCall, lateAgent, '2025-03-07T10:00:00.000Z').ended(60);
    await h.js.publish(namespacedSubject(h.namespace, accountCallEventSubject(account, parkedAgain.type)), JSON.stringify(parkedAgain), { msgID: `p:${parkedAgain.id}` });
    await h.eventually(async () => expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.parked_call_events')).rows[0].n).toBe(1));
    await h.publishKnownAgent({ agent_id: lateAgent, account_id: account });
    await h.eventually(async () => expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.parked_call_events')).rows[0].n).toBe(0));

    expect(await rowsOf(h, account, [...callerCalls, parkedCall])).toEqual({ events: 0, conversations: 0, search: 0, topics: 0, changes: 0, parked: 0 });
    await expect(h.get(account, callerCalls[0])).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));
    // The same erasure asked again finds nothing more to do.
    const repeated = await create(account, { type: 'erasure', caller_number: CALLER });
    expect(await completed(account, repeated.id)).toMatchObject({ conversations_found: 0, conversations_done: 0 });
    // A rebuild re-folds every stream left: the erased ones are gone, and totals and counts agree with the rows.
    expect(await rebuildConversationsProjection({ databaseUrl: h.databaseUrl })).toMatchObject({ identical: true, totals_identical: true, live_rows: 4 });
  });

  it('an access request produces the caller’s conversations with their transcripts, for 24 hours', async () => {
    const created = await create(otherAccount, { type: 'access', caller_number: CALLER });
    const done = await completed(otherAccount, created.id);
    expect(done).toMatchObject({ type: 'access', conversations_found: 1, conversations_done: 1 });
    expect(Date.parse(done.download_expires_at!) - Date.parse(done.completed_at!)).toBe(24 * 60 * 60 * 1000);
    const document = await h.rpc<AccessDocument>(DataRequestsRpc.download, { account_id: otherAccount, request_id: created.id });
    expect(document.conversations).toHaveLength(1);
    const [conversation] = document.conversations as ConversationDetail[];
    expect(conversation).toMatchObject({ id: callerCalls[0], caller_number: CALLER, summary: `Caller ${CALLER} asked about billing` });
    expect(JSON.stringify(conversation)).toContain('my card is on file');
    // Another account cannot see it; an erasure has no document.
    await expect(get(account, created.id)).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));
    const erasures = await h.rpc<PageResult<DataRequestView>>(DataRequestsRpc.list, { account_id: account, query: {} });
    expect(erasures).toMatchObject({ total: 2, page: 1, per_page: 25 });
    await expect(h.rpc(DataRequestsRpc.download, { account_id: account, request_id: erasures.items[0].id })).rejects.toEqual(expect.objectContaining({ code: 'not_found' }));

    // 24 hours later: the document is gone (410 export_expired at the gateway) and its rows are deleted.
    await h.db.query(`UPDATE conversations.data_requests SET download_expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
    await expect(h.rpc(DataRequestsRpc.download, { account_id: otherAccount, request_id: created.id })).rejects.toEqual(expect.objectContaining({ code: 'export_expired' }));
    expect(await deleteExpiredExports(h.service.app.get<ServiceContext>(SERVICE_CONTEXT).dataSource)).toBe(1);
    expect((await h.db.query('SELECT count(*)::int AS n FROM conversations.access_exports')).rows[0].n).toBe(0);
  });
});
