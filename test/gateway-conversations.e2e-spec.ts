import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { CALL_EVENTS_STREAM, namespacedStream } from '@voice/contracts';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';
import { pollUntil } from './support/poll.js';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

function callEvents(conversationId: string, agentId: string, idPrefix = conversationId) {
  return [
    { id: `${idPrefix}-1`, type: 'call.started', conversation_id: conversationId, agent_id: agentId, occurred_at: at(0),
      data: { caller_number: '+14155550100', start_time: at(0) } },
    { id: `${idPrefix}-2`, type: 'call.transcript', conversation_id: conversationId, agent_id: agentId, occurred_at: at(30),
      data: { segments: [
        { speaker: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 2500 },
        { speaker: 'caller', text: 'I need to book a table.', start_ms: 3000, end_ms: 3_725_250 },
      ] } },
    { id: `${idPrefix}-3`, type: 'call.ended', conversation_id: conversationId, agent_id: agentId, occurred_at: at(3726),
      data: { end_time: at(3726), duration: 3726, summary: 'Booked a table.', sentiment: 'positive', outcome: 'appointment_booked', topics: ['booking'] } },
  ];
}

/** Polls until accepted: a call event that beats its agent's event is retried by conversations-service (first after 200 ms, then backing off). */
const eventually = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> => pollUntil(probe, accept, timeoutMs);

/** Conversations and call-event ingest through the gateway: forwarding, formats and the ingest rules the gateway owns. */
describe('conversations and call events over HTTP', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let agentId: string;
  let streamedMessages: () => Promise<number>;
  let deleteCallEventsStream: () => Promise<void>;
  let closeNats: () => Promise<void>;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount();
    const agent = await account.api.post('/v1/agents', { name: 'Bookings', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    const nc = await connect({ servers: system.natsUrl });
    const jsm = await jetstreamManager(nc);
    streamedMessages = async () => (await jsm.streams.info(namespacedStream(system.namespace, CALL_EVENTS_STREAM))).state.messages;
    deleteCallEventsStream = async () => {
      await jsm.streams.delete(namespacedStream(system.namespace, CALL_EVENTS_STREAM));
    };
    closeNats = () => nc.close();
  }, 60_000);

  afterAll(async () => {
    await closeNats?.();
    await system?.close();
  });

  describe('POST /v1/call-events', () => {
    it('accepts a batch with 202 once stored, and the call shows up in the list and detail', async () => {
      const res = await account.api.post('/v1/call-events', { events: callEvents('conv-http-1', agentId) });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ accepted: 3, event_ids: ['conv-http-1-1', 'conv-http-1-2', 'conv-http-1-3'] });
      expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));

      const detail = await eventually(
        () => account.api.get('/v1/conversations/conv-http-1'),
        (r) => r.status === 200 && r.body.data.status === 'completed',
      );
      expect(detail.status).toBe(200);
      expect(Object.keys(detail.body)).toEqual(['data', 'meta']);
      expect(detail.body.data).toMatchObject({ id: 'conv-http-1', agent_id: agentId, agent_name: 'Bookings', status: 'completed', duration: 3726 });

      const list = await account.api.get('/v1/conversations?status=completed');
      expect(list.body.data.map((c: any) => c.id)).toContain('conv-http-1');
    }, 15_000);

    it('accepts a single event', async () => {
      const [started] = callEvents('conv-http-single', agentId);
      const res = await account.api.post('/v1/call-events', started);
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ accepted: 1, event_ids: ['conv-http-single-1'] });
    });

    it('names the first bad event by index and publishes nothing of the batch', async () => {
      const before = await streamedMessages();
      const events = [...callEvents('conv-http-bad', agentId), ...callEvents('conv-http-bad2', agentId)];
      events[3] = { ...events[3], data: { caller_number: '555-0100', start_time: at(0) } };
      const res = await account.api.post('/v1/call-events', { events });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', field: 'events[3].data.caller_number' });
      expect(await streamedMessages()).toBe(before);

      const single = await account.api.post('/v1/call-events', { ...events[3] });
      expect(single.body.error).toMatchObject({ code: 'invalid_parameter', field: 'data.caller_number' });
    });

    it('refuses an event id with a control character as 400 on the id, instead of a 503 the platform would retry forever', async () => {
      const before = await streamedMessages();
      const events = callEvents('conv-http-crlf', agentId);
      events[0] = { ...events[0], id: 'evt-1\r\nX-Injected: yes' };
      const res = await account.api.post('/v1/call-events', { events });
      expect(res.status).toBe(400);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', field: 'events[0].id' });
      expect(await streamedMessages()).toBe(before);
    });

    it('bounds a batch to 1..500 events', async () => {
      const empty = await account.api.post('/v1/call-events', { events: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({ code: 'invalid_parameter', field: 'events' });
      const many = Array.from({ length: 501 }, (_, i) => ({ ...callEvents(`conv-many-${i}`, agentId)[0] }));
      const tooMany = await account.api.post('/v1/call-events', { events: many });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error).toMatchObject({ code: 'invalid_parameter', field: 'events' });
    });

    it('refuses events for agents outside the account with 422 unknown_agent, publishing nothing', async () => {
      const other = await system.createAccount();
      const foreign = await other.api.post('/v1/agents', { name: 'Foreign', voice_platform: 'platform_a' });
      const before = await streamedMessages();
      const events = [callEvents('conv-mine', agentId)[0], callEvents('conv-foreign', foreign.body.data.id)[0], callEvents('conv-ghost', 'no-such-agent')[0]];
      const res = await account.api.post('/v1/call-events', { events });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'unknown_agent', field: 'events[1].agent_id' });
      const single = await account.api.post('/v1/call-events', events[2]);
      expect(single.status).toBe(422);
      expect(single.body.error).toMatchObject({ code: 'unknown_agent', field: 'agent_id' });
      expect(await streamedMessages()).toBe(before);
    });

    it('conversation and event ids are per account: two accounts posting the same ids get a conversation each', async () => {
      const second = await system.createAccount();
      const theirAgent = await second.api.post('/v1/agents', { name: 'Their Desk', voice_platform: 'platform_b' });
      expect(theirAgent.status).toBe(201);
      const id = `call-42-${Date.now()}`;
      // Same conversation id and same event ids in both accounts.
      const mine = callEvents(id, agentId, `shared-${id}`);
      const theirs = callEvents(id, theirAgent.body.data.id, `shared-${id}`).map((e) =>
        e.type === 'call.ended' ? { ...e, data: { ...e.data, summary: 'Their call.', duration: 60 } } : e);
      expect((await account.api.post('/v1/call-events', { events: mine })).status).toBe(202);
      expect((await second.api.post('/v1/call-events', { events: theirs })).status).toBe(202);

      const done = (r: { status: number; body: any }) => r.status === 200 && r.body.data.status === 'completed';
      const ours = await eventually(() => account.api.get(`/v1/conversations/${id}`), done);
      const their = await eventually(() => second.api.get(`/v1/conversations/${id}`), done);
      expect(ours.body.data).toMatchObject({ id, agent_id: agentId, agent_name: 'Bookings', summary: 'Booked a table.', duration: 3726, technical: { voice_platform: 'platform_a' } });
      expect(their.body.data).toMatchObject({ id, agent_id: theirAgent.body.data.id, agent_name: 'Their Desk', summary: 'Their call.', duration: 60, technical: { voice_platform: 'platform_b' } });
      const listed = async (client: TestAccount['api']) => (await client.get('/v1/conversations?per_page=100')).body.data.filter((c: any) => c.id === id);
      expect((await listed(account.api)).map((c: any) => c.summary)).toEqual(['Booked a table.']);
      expect((await listed(second.api)).map((c: any) => c.summary)).toEqual(['Their call.']);
      expect((await second.api.get(`/v1/conversations/${id}/transcript?format=text`)).text).toContain('Caller: I need to book a table.');

      // A true duplicate within one account changes nothing.
      expect((await second.api.post('/v1/call-events', { events: theirs })).status).toBe(202);
      const marker = callEvents(`marker-${Date.now()}`, theirAgent.body.data.id)[0];
      expect((await second.api.post('/v1/call-events', marker)).status).toBe(202);
      await eventually(() => second.api.get(`/v1/conversations/${marker.conversation_id}`), (r) => r.status === 200);
      expect((await second.api.get(`/v1/conversations/${id}`)).body.data).toEqual(their.body.data);
      expect((await second.api.get('/v1/conversations?per_page=100')).body.meta.total).toBe(2);
    }, 20_000);

    /** A new agent, and a way to wait until conversations-service has learnt a status of it from its agent events. */
    async function watchedAgent(name: string) {
      const created = await account.api.post('/v1/agents', { name, voice_platform: 'platform_a' });
      expect(created.status).toBe(201);
      const id: string = created.body.data.id;
      const db = new pg.Client({ connectionString: system.databaseUrl });
      await db.connect();
      const learnt = (status: string) => pollUntil(
        async () => (await db.query('SELECT status FROM conversations.agents WHERE agent_id = $1', [id])).rows[0]?.status,
        (s) => s === status, 10_000, 20,
      );
      return { id, learnt, done: () => db.end() };
    }

    it('a paused or deleted agent answers no new call (422 agent_not_answering); calls already running are still recorded', async () => {
      const { id: nightLine, learnt, done } = await watchedAgent('Night Line');
      const started = (conversationId: string, at: string) =>
        ({ id: `${conversationId}-1`, type: 'call.started', conversation_id: conversationId, agent_id: nightLine, occurred_at: at, data: { caller_number: '+14155550100', start_time: at } });
      const ended = (conversationId: string, at: string) =>
        ({ id: `${conversationId}-9`, type: 'call.ended', conversation_id: conversationId, agent_id: nightLine, occurred_at: at, data: { end_time: at, duration: 30 } });
      const transcript = (conversationId: string, at: string) =>
        ({ id: `${conversationId}-5`, type: 'call.transcript', conversation_id: conversationId, agent_id: nightLine, occurred_at: at, data: { segments: [{ speaker: 'caller', text: 'Still there?', start_ms: 0, end_ms: 800 }] } });
      const now = () => new Date().toISOString();
      try {
        await learnt('active');
        const running = `night-running-${Date.now()}`;
        expect((await account.api.post('/v1/call-events', started(running, now()))).status).toBe(202);
        await eventually(() => account.api.get(`/v1/conversations/${running}`), (r) => r.status === 200);

        expect((await account.api.patch(`/v1/agents/${nightLine}`, { status: 'paused' })).status).toBe(200);
        await learnt('paused');
        const duringPause = `night-paused-${Date.now()}`;
        const refused = await account.api.post('/v1/call-events', { events: [ended(running, now()), started(duringPause, now())] });
        expect(refused.status).toBe(422);
        expect(refused.body.error).toMatchObject({ type: 'validation_error', code: 'agent_not_answering', field: 'events[1].agent_id' });
        const single = await account.api.post('/v1/call-events', started(duringPause, now()));
        expect([single.status, single.body.error?.code, single.body.error?.field]).toEqual([422, 'agent_not_answering', 'agent_id']);

        expect((await account.api.patch(`/v1/agents/${nightLine}`, { status: 'active' })).status).toBe(200);
        await learnt('active');
        const afterResume = `night-resumed-${Date.now()}`;
        expect((await account.api.post('/v1/call-events', started(afterResume, now()))).status).toBe(202);
        await eventually(() => account.api.get(`/v1/conversations/${afterResume}`), (r) => r.status === 200);

        expect((await account.api.delete(`/v1/agents/${nightLine}`)).status).toBe(204);
        await learnt('deleted');
        const afterDelete = await account.api.post('/v1/call-events', started(`night-deleted-${Date.now()}`, now()));
        expect([afterDelete.status, afterDelete.body.error?.code]).toEqual([422, 'agent_not_answering']);
        // The call running since before the pause ends on record, with its late transcript.
        expect((await account.api.post('/v1/call-events', { events: [transcript(running, now()), ended(running, now())] })).status).toBe(202);
        const detail = await eventually(() => account.api.get(`/v1/conversations/${running}`), (r) => r.body.data?.status === 'completed');
        expect(detail.body.data).toMatchObject({ status: 'completed', has_transcript: true, agent_name: 'Night Line' });
        expect((await account.api.get(`/v1/conversations/${duringPause}`)).status).toBe(404);
      } finally {
        await done();
      }
    }, 30_000);

    it('a call recorded before its agent was paused gets its end over HTTP, whatever its timestamps (a platform clock ahead of ours)', async () => {
      const { id: skewed, learnt, done } = await watchedAgent('Skewed Line');
      // The platform's clock is a minute ahead: the call's start is stamped after the pause that follows it.
      const ahead = (seconds: number) => new Date(Date.now() + 60_000 + seconds * 1000).toISOString();
      const id = `skewed-${Date.now()}`;
      const event = (n: number, type: string, occurredAt: string, data: object) => ({ id: `${id}-${n}`, type, conversation_id: id, agent_id: skewed, occurred_at: occurredAt, data });
      try {
        await learnt('active');
        const startAt = ahead(0);
        expect((await account.api.post('/v1/call-events', event(1, 'call.started', startAt, { caller_number: '+14155550100', start_time: startAt }))).status).toBe(202);
        await eventually(() => account.api.get(`/v1/conversations/${id}`), (r) => r.status === 200);

        expect((await account.api.patch(`/v1/agents/${skewed}`, { status: 'paused' })).status).toBe(200);
        await learnt('paused');
        const later = [
          event(2, 'call.transcript', ahead(20), { segments: [{ speaker: 'caller', text: 'Are you there?', start_ms: 0, end_ms: 900 }] }),
          event(3, 'call.ended', ahead(30), { end_time: ahead(30), duration: 30 }),
        ];
        const res = await account.api.post('/v1/call-events', { events: later });
        expect([res.status, res.body.error?.code]).toEqual([202, undefined]);
        const detail = await eventually(() => account.api.get(`/v1/conversations/${id}`), (r) => r.body.data?.status === 'completed');
        expect(detail.body.data).toMatchObject({ status: 'completed', duration: 30, has_transcript: true });
      } finally {
        await done();
      }
    }, 30_000);

    it('an end that arrives before its start (the call began before the pause) is accepted over HTTP: the start decides', async () => {
      const { id: agent, learnt, done } = await watchedAgent('Late Start Line');
      const id = `late-start-${Date.now()}`;
      const event = (n: number, type: string, occurredAt: string, data: object) => ({ id: `${id}-${n}`, type, conversation_id: id, agent_id: agent, occurred_at: occurredAt, data });
      try {
        await learnt('active');
        const startAt = new Date().toISOString();
        expect((await account.api.patch(`/v1/agents/${agent}`, { status: 'paused' })).status).toBe(200);
        await learnt('paused');
        const endAt = new Date(Date.now() + 1000).toISOString();
        const end = await account.api.post('/v1/call-events', event(9, 'call.ended', endAt, { end_time: endAt, duration: 40 }));
        expect([end.status, end.body.error?.code]).toEqual([202, undefined]);
        const start = await account.api.post('/v1/call-events', event(1, 'call.started', startAt, { caller_number: '+14155550100', start_time: startAt }));
        expect([start.status, start.body.error?.code]).toEqual([202, undefined]);
        const detail = await eventually(
          () => account.api.get(`/v1/conversations/${id}`),
          (r) => r.body.data?.status === 'completed' && r.body.data?.caller_number !== null,
        );
        expect(detail.body.data).toMatchObject({ status: 'completed', duration: 40, caller_number: '+14155550100', start_time: startAt });
      } finally {
        await done();
      }
    }, 30_000);

    it('needs the call_events:write scope', async () => {
      const key = await account.api.post('/v1/api-keys', { scopes: ['conversations:read'] });
      const res = await system.client(key.body.data.api_key).post('/v1/call-events', callEvents('conv-scope', agentId)[0]);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('call_events:write');
    });
  });

  describe('GET /v1/conversations', () => {
    it('forwards filters and builds absolute links that keep them', async () => {
      await account.api.post('/v1/call-events', { events: [...callEvents('conv-page-a', agentId), ...callEvents('conv-page-b', agentId)] });
      const res = await eventually(
        () => account.api.get('/v1/conversations?status=completed&per_page=1&sort_by=start_time'),
        (r) => r.status === 200 && r.body.meta.total >= 3,
      );
      expect(res.body.meta.total).toBeGreaterThanOrEqual(3);
      expect(res.body.meta).toMatchObject({ page: 1, per_page: 1, total_pages: res.body.meta.total });
      const next = new URL(res.body.links.next);
      expect(`${next.origin}${next.pathname}`).toBe(`${system.baseUrl}/v1/conversations`);
      expect(Object.fromEntries(next.searchParams)).toEqual({ status: 'completed', per_page: '1', sort_by: 'start_time', page: '2' });
      expect(res.body.links.prev).toBeNull();
    }, 15_000);

    it('date filters select by start time: a call that starts before a boundary and ends after it is on the start side', async () => {
      // 23:59:30 → 00:01:10 across midnight, from a caller no other call of this file uses.
      const start = '2025-03-02T23:59:30Z';
      const end = '2025-03-03T00:01:10Z';
      const id = 'conv-midnight';
      const events = [
        { id: `${id}-1`, type: 'call.started', conversation_id: id, agent_id: agentId, occurred_at: start, data: { caller_number: '+14155550177', start_time: start } },
        { id: `${id}-2`, type: 'call.ended', conversation_id: id, agent_id: agentId, occurred_at: end, data: { end_time: end, duration: 100 } },
      ];
      expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);
      const ids = async (dates: string) => {
        const res = await account.api.get(`/v1/conversations?caller=%2B14155550177&${dates}`);
        expect(res.status).toBe(200);
        return res.body.data.map((c: { id: string }) => c.id);
      };
      await eventually(() => ids(''), (found) => found.includes(id));
      expect(await ids('start_date=2025-03-02&end_date=2025-03-02')).toEqual([id]); // a date alone is the whole day
      expect(await ids('start_date=2025-03-03')).toEqual([]); // it ended on the 3rd but started on the 2nd
      expect(await ids('end_date=2025-03-03T00:00:00Z')).toEqual([id]); // started before, ended after the boundary
      expect(await ids(`start_date=${encodeURIComponent(start)}`)).toEqual([id]); // inclusive
      expect(await ids('start_date=2025-03-02T23:59:31Z')).toEqual([]);
      expect(await ids(`end_date=${encodeURIComponent(start)}`)).toEqual([id]); // inclusive
      expect(await ids('end_date=2025-03-02T23:59:29Z')).toEqual([]);
    }, 20_000);

    it('min_cost/max_cost filter by the cost the platform reported (USD decimals); bad values are 400 on the parameter', async () => {
      const call = (id: string, cost?: number) => [
        { id: `${id}-1`, type: 'call.started', conversation_id: id, agent_id: agentId, occurred_at: '2025-03-04T10:00:00Z', data: { start_time: '2025-03-04T10:00:00Z' } },
        { id: `${id}-2`, type: 'call.ended', conversation_id: id, agent_id: agentId, occurred_at: '2025-03-04T10:01:00Z',
          data: { end_time: '2025-03-04T10:01:00Z', ...(cost === undefined ? {} : { cost: { amount: cost, currency: 'USD' } }) } },
      ];
      const events = [...call('conv-cost-cheap', 0.05), ...call('conv-cost-mid', 0.25), ...call('conv-cost-dear', 1.5), ...call('conv-cost-unknown')];
      expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);
      const ids = async (query: string) => {
        const res = await account.api.get(`/v1/conversations?${query}`);
        expect(res.status).toBe(200);
        return res.body.data.map((c: { id: string }) => c.id).sort();
      };
      await eventually(() => ids('min_cost=0'), (found) => found.length === 3);
      expect(await ids('min_cost=0')).toEqual(['conv-cost-cheap', 'conv-cost-dear', 'conv-cost-mid']);
      expect(await ids('min_cost=0.25')).toEqual(['conv-cost-dear', 'conv-cost-mid']);
      expect(await ids('max_cost=0.25')).toEqual(['conv-cost-cheap', 'conv-cost-mid']);
      expect(await ids('min_cost=0.06&max_cost=1.49')).toEqual(['conv-cost-mid']);
      const detail = await account.api.get('/v1/conversations/conv-cost-mid');
      expect(detail.body.data.technical).toMatchObject({ cost: { amount: 0.25, currency: 'USD', breakdown: [] }, latency: [], end_reason: null, platform_call_id: null });
      expect(detail.body.data.caller_number).toBeNull();
      for (const [query, field] of [['min_cost=-1', 'min_cost'], ['max_cost=cheap', 'max_cost'], ['min_cost=2&max_cost=1', 'min_cost']]) {
        const res = await account.api.get(`/v1/conversations?${query}`);
        expect([query, res.status, res.body.error]).toEqual([query, 400, expect.objectContaining({ type: 'invalid_request', code: 'invalid_parameter', field })]);
      }
    }, 20_000);

    it('relays the service’s validation errors with their HTTP status', async () => {
      const res = await account.api.get('/v1/conversations?sentiment=angry');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', field: 'sentiment', valid_values: ['positive', 'neutral', 'negative'] });
      const date = await account.api.get('/v1/conversations?start_date=yesterday');
      expect(date.body.error).toMatchObject({ code: 'invalid_date_format', field: 'start_date' });
    });

    it('a page past the end is 200 with empty data, prev pointing at the last page', async () => {
      const res = await account.api.get('/v1/conversations?page=999');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
      expect(res.body.links.next).toBeNull();
      expect(new URL(res.body.links.prev).searchParams.get('page')).toBe(String(Math.max(res.body.meta.total_pages, 1)));
    });

    it('unknown or foreign conversation id → 404 not_found', async () => {
      const res = await account.api.get('/v1/conversations/no-such-call');
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
      const other = await system.createAccount();
      expect((await other.api.get('/v1/conversations/conv-http-1')).status).toBe(404);
    });
  });

  describe('GET /v1/conversations/{id}/transcript', () => {
    const path = '/v1/conversations/conv-http-1/transcript';

    it('defaults to the JSON envelope', async () => {
      const res = await account.api.get(path);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ conversation_id: 'conv-http-1', segments: [{ speaker: 'agent' }, { speaker: 'caller' }] });
      expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
    });

    it.each([
      ['?format=srt', {}, /^application\/x-subrip/, '.srt', '01:02:05,250'],
      ['?format=vtt', {}, /^text\/vtt/, '.vtt', '01:02:05.250'],
      ['?format=text', {}, /^text\/plain; charset=utf-8/, '.txt', 'Caller: I need to book a table.'],
      ['', { accept: 'text/vtt' }, /^text\/vtt/, '.vtt', 'WEBVTT'],
      ['', { accept: 'application/x-subrip' }, /^application\/x-subrip/, '.srt', '00:00:00,000 --> 00:00:02,500'],
      ['', { accept: 'text/plain' }, /^text\/plain/, '.txt', 'Agent: Hello, how can I help?'],
      ['?format=srt', { accept: 'text/vtt' }, /^application\/x-subrip/, '.srt', '-->'],
    ])('%s %j → raw document as an attachment', async (query, headers, contentType, extension, excerpt) => {
      const res = await account.api.get(`${path}${query}`, headers as Record<string, string>);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(contentType);
      expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="[^"]+\\${extension}"$`));
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.text).toContain(excerpt);
    });

    // An Accept admitting none of the formats (image/png) is 406: test/transcripts.e2e-spec.ts.
    it.each([['*/*'], ['application/json']])('Accept %s → JSON', async (accept) => {
      const res = await account.api.get(path, { accept });
      expect(res.status).toBe(200);
      expect(res.body.data.conversation_id).toBe('conv-http-1');
    });

    it('an unknown ?format is 400 invalid_parameter on format with valid_values', async () => {
      const res = await account.api.get(`${path}?format=pdf`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', field: 'format', valid_values: ['json', 'text', 'srt', 'vtt'] });
    });
  });

  // Last: removes the stream the whole system ingests through.
  it('JetStream unable to store the events → 503 service_unavailable, not 202', async () => {
    await deleteCallEventsStream();
    const res = await account.api.post('/v1/call-events', { events: callEvents('conv-no-stream', agentId) });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'service_unavailable_error', code: 'service_unavailable', request_id: res.headers.get('x-request-id') });
  });
});
